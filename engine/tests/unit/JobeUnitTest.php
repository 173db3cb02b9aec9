<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use Prutor\Engine\ClientAddress;
use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\Environments;
use Prutor\Engine\HttpError;
use Prutor\Engine\Jobe\Access;
use Prutor\Engine\Jobe\Args;
use Prutor\Engine\Jobe\Runs;
use Prutor\Engine\Verdict;

/** The Jobe API's pure pieces: argument words, addresses, output escaping, limits, outcomes. */
final class JobeUnitTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function env(string $slug): array
    {
        $all = json_decode((string) file_get_contents(dirname(__DIR__, 3) . '/nosql/environments.json'), true);
        foreach ($all as $e) {
            if ($e['slug'] === $slug) {
                return $e;
            }
        }
        throw new \LogicException($slug);
    }

    public function testArgsSplitLikeAShellWithoutOne(): void
    {
        $this->assertSame(['-x', 'c', '-Wall'], Args::split(['-x c', '-Wall']));
        $this->assertSame(['-c', 'print("Blah")'], Args::split(['-c "print(\"Blah\")"']));
        $this->assertSame(['a b', '$(id)', '`x`', ';', '>f'], Args::split(["'a b'", '$(id)', '`x`', ';', '>f']));
        $this->assertNull(Args::split('-O2'), 'not a list');
        $this->assertNull(Args::split([['nested']]));
        $this->assertSame([], Args::split([]));
    }

    public function testClientAddressBelievesOnlyTheProxysOwnEntry(): void
    {
        $proxies = ['127.0.0.1', '::1'];
        $this->assertSame('203.0.113.7', ClientAddress::of(['REMOTE_ADDR' => '127.0.0.1', 'HTTP_X_FORWARDED_FOR' => '10.0.0.1, 203.0.113.7'], $proxies));
        $this->assertSame('198.51.100.2', ClientAddress::of(['REMOTE_ADDR' => '198.51.100.2', 'HTTP_X_FORWARDED_FOR' => '127.0.0.1'], $proxies), 'an untrusted peer cannot claim an address');
        $this->assertSame('127.0.0.1', ClientAddress::of(['REMOTE_ADDR' => '127.0.0.1', 'HTTP_X_FORWARDED_FOR' => 'junk'], $proxies));
        $this->assertTrue(ClientAddress::in('10.1.2.3', ['192.168.0.0/16', '10.0.0.0/8']));
        $this->assertFalse(ClientAddress::in('11.1.2.3', ['10.0.0.0/8']));
        $this->assertTrue(ClientAddress::in('10.1.2.3', ['10.1.2.0/25']));
        $this->assertFalse(ClientAddress::in('10.1.2.200', ['10.1.2.0/25']));
        $this->assertTrue(ClientAddress::in('2001:db8::5', ['2001:db8::/32']));
        $this->assertFalse(ClientAddress::in('127.0.0.1', ['::1']));
        $this->assertFalse(ClientAddress::in('not an ip', ['0.0.0.0/0']));
    }

    public function testNonUtf8IsEscapedAsJobeDoesAndUtf8Kept(): void
    {
        $this->assertSame("Hello\n\\x01\\x06\\xc0\\xc9\n", Runs::clean("Hello\n\x01\x06\xc0\xc9\n"));
        $this->assertSame("Un rôle\t\x01\n", Runs::clean("Un rôle\t\x01\n"), 'valid UTF-8 is left alone');
    }

    public function testLimitsJobeDefaultsCallerValuesAndMaxima(): void
    {
        $c = Config::fromEnv([]);
        $env = self::env('c');
        $l = Runs::limits($c, $env, []);
        $this->assertSame([5000, 400 * 1024, 30], [$l['CPU_TIME_MS'], $l['MEMORY_KB'], $l['NPROC']], "Jobe's C defaults");
        $l = Runs::limits($c, $env, ['cputime' => 3, 'memorylimit' => 100000, 'numprocs' => 999, 'streamsize' => 500]);
        $this->assertSame([3000, 1048576, 64, 2097152], [$l['CPU_TIME_MS'], $l['MEMORY_KB'], $l['NPROC'], $l['OUTPUT_BYTES']], 'clamped to the maxima');
        $l = Runs::limits($c, $env, ['cputime' => 'rm -rf /', 'memorylimit' => 0]);
        $this->assertSame([5000, 400 * 1024], [$l['CPU_TIME_MS'], $l['MEMORY_KB']], 'non-numeric and 0 take the default');
        $this->expectException(HttpError::class);
        $this->expectExceptionMessage('cputime exceeds maximum allowed on this Jobe server (20 secs)');
        Runs::limits($c, $env, ['cputime' => 151]);
    }

    public function testWhileAnEventRunsCpuTimeIsCutToTheExamCap(): void
    {
        $c = Config::fromEnv(['ENGINE_JOBE_EXAM_CPU_TIME_MS' => '4000']);
        $env = self::env('c');
        $this->assertSame(4000, Runs::limits($c, $env, ['cputime' => 20], $c->jobeExamCpuTimeMs)['CPU_TIME_MS'], '20 s asked during an exam');
        $this->assertSame(2000, Runs::limits($c, $env, ['cputime' => 2], $c->jobeExamCpuTimeMs)['CPU_TIME_MS'], 'less than the cap is kept');
        $this->assertSame(20000, Runs::limits($c, $env, ['cputime' => 20])['CPU_TIME_MS'], 'no event running: the maximum holds');
    }

    public function testJobeSlotsAreFewerThanTheEngines(): void
    {
        $slots = static fn (array $env): int => Config::fromEnv($env)->jobeSlots;
        $this->assertSame(1, $slots(['ENGINE_SLOTS' => '2']), 'half by default');
        $this->assertSame(4, $slots(['ENGINE_SLOTS' => '8']));
        $this->assertSame(3, $slots(['ENGINE_SLOTS' => '4', 'ENGINE_JOBE_SLOTS' => '9']), 'one slot always stays for students');
        $this->assertSame(1, $slots(['ENGINE_SLOTS' => '1']), 'a single slot is shared');
    }

    public function testOutcomes(): void
    {
        $this->assertSame(15, Runs::outcome(Verdict::ACCEPTED, ''));
        $this->assertSame(12, Runs::outcome(Verdict::ACCEPTED, 'warning'), 'stderr output is a runtime error, as in Jobe');
        $this->assertSame(15, Runs::outcome(Verdict::RUNTIME_ERROR, ''), 'a non-zero exit code alone is not an error for Jobe');
        $this->assertSame(12, Runs::outcome(Verdict::RUNTIME_ERROR, 'Traceback'), 'with stderr it is');
        $this->assertSame(12, Runs::outcome(Verdict::RUNTIME_ERROR, '', 6), 'a signal is');
        $this->assertSame(13, Runs::outcome(Verdict::OUTPUT_LIMIT, ''));
        $this->assertSame(17, Runs::outcome(Verdict::MEMORY_LIMIT, '', 9));
        $this->assertSame(12, Runs::outcome(Verdict::MEMORY_LIMIT, '', 11), 'a crash at the stack limit');
        $this->assertSame(19, Runs::outcome(Verdict::FORBIDDEN_SYSCALL, ''));
        $this->assertSame(20, Runs::outcome(Verdict::INTERNAL_ERROR, ''));
    }

    public function testCompileAndRunLinesOfTheEnvironments(): void
    {
        $this->assertSame(['gcc', '-std=c11', '-O2', '-Wall', '-fdiagnostics-plain-output', '-o', 'prog', 'main.c', '-lm'],
            Environments::compileArgv(self::env('c'), 'main.c', 'prog'));
        $cpp = self::env('cpp');
        $cpp['compile_args'] = ['-Wall', '-Werror'];
        $cpp['link_args'] = [];
        $this->assertSame(['g++', '-Wall', '-Werror', '-fdiagnostics-plain-output', '-o', 'prog', 'x.cpp'], Environments::compileArgv($cpp, 'x.cpp', 'prog'));
        $this->assertSame(['./prog', 'a', 'b'], Environments::runArgv(self::env('c'), 'prog', ['a', 'b']));
        $py = Environments::runArgv(self::env('python3'), 'prog');
        $this->assertSame(['/usr/bin/python3', '-S', '-BE', '-c'], array_slice($py, 0, 4));
        $this->assertSame('prog', end($py));
        $this->assertSame(['/usr/bin/python3', '-S', '-c'], array_slice(Environments::compileArgv(self::env('python3'), 'main.py', 'prog'), 0, 3));
    }

    public function testValidFileNames(): void
    {
        foreach (['prog.c', '__tester__.python3', 'Data-1.txt'] as $ok) {
            $this->assertTrue(Runs::validFileName($ok), $ok);
        }
        foreach (['', '../x', '.hidden', '-rf', 'a b', 'a/b', "x\n", str_repeat('a', 200)] as $bad) {
            $this->assertFalse(Runs::validFileName($bad), $bad);
        }
    }
}
