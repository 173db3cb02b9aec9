<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\HttpError;
use Prutor\Engine\Jobe\Access;
use Prutor\Engine\Jobe\RateLimit;

/**
 * The Jobe API's per-key budgets: counted in memcached, so two engine replicas (two PHP
 * processes, each with its own APCu) draw on one budget; a sliding hour; a refusal says
 * when to come back; runs and file PUTs counted apart; memcached away: each replica's own
 * count. Against a memcached of the test's own (started here on a free port, stopped at the
 * end), never the stack's.
 */
final class JobeRateLimitTest extends TestCase
{
    /** @var resource|null */
    private static $memcached = null;
    private static int $port = 0;
    private static string $var = '';

    public static function setUpBeforeClass(): void
    {
        $bin = trim((string) shell_exec('command -v memcached'));
        if ($bin === '' || !class_exists(\Memcached::class)) {
            self::markTestSkipped('memcached (the server) or php-memcached is missing');
        }
        self::$port = self::freePort();
        $user = trim((string) shell_exec('id -u')) === '0' ? ['-u', 'root'] : [];
        $p = proc_open([$bin, ...$user, '-l', '127.0.0.1', '-p', (string) self::$port, '-U', '0', '-m', '8'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        if (!is_resource($p)) {
            self::markTestSkipped('could not start memcached');
        }
        self::$memcached = $p;
        for ($i = 0; $i < 100 && @fsockopen('127.0.0.1', self::$port, $errno, $errstr, 0.1) === false; $i++) {
            usleep(20_000);
        }
        self::$var = sys_get_temp_dir() . '/prutor-jobe-rate-' . getmypid();
        @mkdir(self::$var . '/telemetry', 0700, true);
    }

    public static function tearDownAfterClass(): void
    {
        if (is_resource(self::$memcached)) {
            proc_terminate(self::$memcached);
            proc_close(self::$memcached);
        }
        @unlink(self::$var . '/telemetry/engine.jsonl');
        @rmdir(self::$var . '/telemetry');
        @rmdir(self::$var);
    }

    private static function freePort(): int
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $name = (string) stream_socket_get_name($s ?: throw new \RuntimeException('no free port'), false);
        fclose($s);
        return (int) substr($name, strrpos($name, ':') + 1);
    }

    /** A client as the engine's (Session::memcached), to a port of choice. */
    public static function client(int $port): \Memcached
    {
        $mc = new \Memcached();
        $mc->setOptions([\Memcached::OPT_BINARY_PROTOCOL => false, \Memcached::OPT_COMPRESSION => false,
            \Memcached::OPT_CONNECT_TIMEOUT => 200, \Memcached::OPT_POLL_TIMEOUT => 500, \Memcached::OPT_RETRY_TIMEOUT => 1]);
        $mc->addServer('127.0.0.1', $port);
        return $mc;
    }

    private static function bucket(): string
    {
        return 'test:' . bin2hex(random_bytes(6));
    }

    public function testTheLimitHoldsOverASlidingHourAndARefusalSaysWhenToComeBack(): void
    {
        $rl = new RateLimit(self::client(self::$port));
        $b = self::bucket();
        $t = 1_000 * 3600 + 100; // 100 s into a window
        for ($i = 0; $i < 5; $i++) {
            $this->assertSame(0, $rl->take($b, 5, 3600, $t), "call $i of 5");
        }
        $this->assertSame('memcached', $rl->backend());
        $this->assertSame(3501, $rl->take($b, 5, 3600, $t), 'the 6th waits for the next window (+1 s: the full previous window still weighs 5)');
        $this->assertSame(2501, $rl->take($b, 5, 3600, $t + 1000), 'a refusal takes nothing: the same moment to come back');
        // next window, 1 s in: the previous 5 weigh floor(5 x 3599/3600) = 4, so one more fits
        $t2 = $t + 3501;
        $this->assertSame(0, $rl->take($b, 5, 3600, $t2));
        // 2 + 4 > 5: room again when floor(5 x (3600 - e)/3600) <= 3, at e = 721
        $this->assertSame(720, $rl->take($b, 5, 3600, $t2));
        $this->assertSame(0, $rl->take($b, 5, 3600, $t2 + 720));
        $this->assertSame(0, $rl->take($b, 0, 3600, $t2), '0 is no limit');
    }

    public function testWaitIsTheFirstSecondThatFits(): void
    {
        foreach ([[3, 0, 3, 10], [2, 7, 5, 0], [0, 9, 3, 3000], [599, 600, 600, 1800], [1, 1, 1, 3599], [40, 13, 40, 0]] as [$held, $prev, $limit, $elapsed]) {
            $wait = RateLimit::wait($held, $prev, $limit, 3600, $elapsed);
            $fits = static function (int $at) use ($held, $prev, $limit): bool {
                // the state at $at seconds after this window's start, with no calls meanwhile
                return $at < 3600 ? $held + 1 + intdiv($prev * (3600 - $at), 3600) <= $limit
                    : 1 + intdiv($held * (7200 - $at), 3600) <= $limit;
            };
            $this->assertTrue($fits($elapsed + $wait), "fits after $wait s: " . json_encode([$held, $prev, $limit, $elapsed]));
            $this->assertFalse($wait > 1 && $fits($elapsed + $wait - 1), "not a second earlier: " . json_encode([$held, $prev, $limit, $elapsed]));
        }
    }

    /**
     * @param int $port the memcached of both "replicas"
     * @return list<array{admitted: int, backend: string}> one per process
     */
    private static function replicas(int $port, string $bucket, int $limit, int $tries): array
    {
        $autoload = dirname(__DIR__, 2) . '/src/autoload.php';
        $start = microtime(true) + 0.5;
        $code = 'require ' . var_export($autoload, true) . ';'
            . ' $mc = new Memcached(); $mc->setOptions([Memcached::OPT_BINARY_PROTOCOL => false, Memcached::OPT_CONNECT_TIMEOUT => 200,'
            . ' Memcached::OPT_POLL_TIMEOUT => 500, Memcached::OPT_RETRY_TIMEOUT => 1]); $mc->addServer("127.0.0.1", ' . $port . ');'
            . ' $rl = new Prutor\Engine\Jobe\RateLimit($mc);'
            . ' time_sleep_until(' . $start . '); $n = 0;'
            . ' for ($i = 0; $i < ' . $tries . '; $i++) { $n += $rl->take(' . var_export($bucket, true) . ', ' . $limit . ') === 0 ? 1 : 0; }'
            . ' echo json_encode(["admitted" => $n, "backend" => $rl->backend()]);';
        $procs = [];
        foreach ([1, 2] as $r) {
            // each its own PHP process: its own APCu, as two engine replicas have
            $procs[$r] = proc_open([PHP_BINARY, '-d', 'apc.enable_cli=1', '-r', $code], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes[$r]);
        }
        $out = [];
        foreach ($procs as $r => $p) {
            $json = stream_get_contents($pipes[$r][1]);
            $err = stream_get_contents($pipes[$r][2]);
            proc_close($p);
            $out[] = json_decode((string) $json, true) ?? throw new \RuntimeException("replica $r: $json $err");
        }
        return $out;
    }

    public function testTwoReplicasShareOneBudget(): void
    {
        $b = self::bucket();
        $r = self::replicas(self::$port, $b, 20, 30);
        $this->assertSame(['memcached', 'memcached'], array_column($r, 'backend'));
        $this->assertSame(20, array_sum(array_column($r, 'admitted')), 'two processes, 60 calls at once: 20 admitted in all ' . json_encode($r));
        $this->assertSame(20, (int) self::client(self::$port)->get('jobe:rate:' . $b . ':' . intdiv(time(), 3600)), 'the count is of admitted calls');
    }

    public function testWithoutMemcachedEachReplicaCountsForItself(): void
    {
        if (!function_exists('apcu_enabled')) {
            $this->markTestSkipped('APCu is missing');
        }
        // a port nothing listens on: the replicas fall back to their own APCu (availability of
        // the exam over strict global accounting): each still holds the key to its rate
        $r = self::replicas(self::freePort(), self::bucket(), 20, 30);
        $this->assertSame(['apcu', 'apcu'], array_column($r, 'backend'));
        $this->assertSame([20, 20], array_column($r, 'admitted'), 'bounded per replica: N replicas x the rate during the outage');
    }

    public function testWithoutMemcachedTheOperatorIsToldOnceAMinute(): void
    {
        if (!function_exists('apcu_enabled') || !apcu_enabled()) {
            $this->markTestSkipped('APCu is not enabled for the CLI (engine/test.sh enables it)');
        }
        $key = bin2hex(random_bytes(16));
        $c = Config::fromEnv(['PRUTOR_VAR' => self::$var, 'ENGINE_JOBE_KEYS' => "$key:1"]);
        $access = new Access($c, new RateLimit(self::client(self::freePort())));
        apcu_delete('jobe:rate:local-logged');
        $access->admit(['HTTP_X_API_KEY' => $key, 'REMOTE_ADDR' => '198.51.100.9'], 'runs');
        try {
            $access->admit(['HTTP_X_API_KEY' => $key, 'REMOTE_ADDR' => '198.51.100.9'], 'runs');
            $this->fail('the local count holds the key to its rate');
        } catch (HttpError $e) {
            $this->assertSame(429, $e->status);
        }
        $log = (string) file_get_contents(self::$var . '/telemetry/engine.jsonl');
        $this->assertSame(1, substr_count($log, '"kind":"jobe_rate_local","count":"apcu"'), $log);
        $this->assertStringContainsString('"counted":"runs","rate_per_hour":1,"count":"apcu"', $log);
    }

    public function testRunsAndFilePutsAreCountedApartPerKey(): void
    {
        $keyA = bin2hex(random_bytes(16));
        $keyB = bin2hex(random_bytes(16));
        $c = Config::fromEnv(['PRUTOR_VAR' => self::$var, 'ENGINE_JOBE_KEYS' => "$keyA:2:3,$keyB:1"]);
        $this->assertSame([$keyA => 3, $keyB => 4], $c->jobePutsPerHour, 'KEY:RUNS:PUTS; without PUTS, ENGINE_JOBE_PUTS_PER_RUN (4) x RUNS');
        $access = new Access($c, new RateLimit(self::client(self::$port)));
        $a = ['HTTP_X_API_KEY' => $keyA, 'REMOTE_ADDR' => '198.51.100.9'];
        $status = static function (callable $f): array {
            try {
                $f();
                return [200, ''];
            } catch (HttpError $e) {
                return [$e->status, $e->getMessage(), (int) ($e->headers['Retry-After'] ?? 0) > 0];
            }
        };
        $puts = [];
        for ($i = 0; $i < 4; $i++) {
            $puts[] = $status(fn () => $access->admit($a, 'puts'));
        }
        $this->assertSame([[200, ''], [200, ''], [200, ''], [429, 'Max file PUT rate for this server exceeded', true]], $puts);
        $this->assertSame([200, ''], $status(fn () => $access->admit($a, 'runs')), 'runs have their own budget');
        $this->assertSame([200, ''], $status(fn () => $access->admit($a, null)), 'HEAD and languages are not counted');
        $this->assertSame([200, ''], $status(fn () => $access->admit($a, 'runs')));
        $this->assertSame([429, 'Max RUN rate for this server exceeded', true], $status(fn () => $access->admit($a, 'runs')));
        $b = $access->admit(['HTTP_X_API_KEY' => $keyB, 'REMOTE_ADDR' => '198.51.100.9'], 'puts');
        $this->assertSame('key:' . Access::keyId($keyB), $b['label'], 'another key is not affected');
        $this->assertNotSame($access->admit($a, null)['space'], $b['space'], 'each key its own file space');
        $this->assertSame($access->admit($a, null)['space'], (new Access($c))->admit($a, null)['space'], 'the same key, the same space');
        $this->assertStringNotContainsString($keyA, json_encode($access->admit($a, null)), 'the space and label never carry the key');
    }
}
