<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;

/**
 * Conformance of the Jobe API with Jobe's documented behaviour (restapi.pdf: resources,
 * run_spec fields, outcomes, status codes; Jobe's README: parameters and their defaults),
 * as Moodle CodeRunner uses it, for every language GET languages lists; and the attacks
 * on it: anonymous and spoofed callers, a session cookie instead of a key, over-rate
 * calls (runs and file PUTs, the count shared by replicas), one key's files seen or
 * overwritten by another, cputime/memorylimit/numprocs above the environment's maxima.
 * Through HAProxy.
 */
final class JobeTest extends TestCase
{
    private const API = '/jobe/index.php/restapi/';
    private static ?Fixture $f = null;
    /** @var list<string> the stack's keys (ENGINE_JOBE_KEYS): [0] the main key, [1] the low-rate one, [2] another course's */
    private static array $keys = [];
    /** @var array<int, int> runs per hour by key index */
    private static array $rates = [];

    public static function setUpBeforeClass(): void
    {
        $keys = (string) getenv('ENGINE_JOBE_KEYS');
        if ($keys === '') {
            self::markTestSkipped('ENGINE_JOBE_KEYS is not set: the Jobe tests need the running stack');
        }
        foreach (explode(',', $keys) as $i => $entry) {
            [$k, $r] = array_pad(explode(':', trim($entry), 2), 2, '');
            self::$keys[$i] = $k;
            self::$rates[$i] = ctype_digit($r) ? (int) $r : 600;
        }
        self::$f = Fixture::open();
    }

    public static function tearDownAfterClass(): void
    {
        self::$f?->cleanup();
    }

    /**
     * @param list<string> $headers
     * @return array{status: int, json: mixed, headers: array<string, string>, ms: float, raw: string}
     */
    private static function jobe(string $method, string $resource, ?array $body = null, ?array $headers = null, ?string $base = null): array
    {
        $f = self::$f ?? throw new \LogicException('no fixture');
        return $f->call($method, self::API . $resource, $body, null, false, $base, $headers ?? ['X-API-KEY: ' . self::$keys[0]]);
    }

    /**
     * @param array<string, mixed> $spec
     * @return array<string, mixed> the run result (asserts 200)
     */
    private function submit(string $language, string $source, array $spec = []): array
    {
        $r = self::jobe('POST', 'runs', ['run_spec' => ['language_id' => $language, 'sourcecode' => $source] + $spec]);
        $this->assertSame(200, $r['status'], $r['raw']);
        $this->assertSame(['run_id', 'outcome', 'cmpinfo', 'stdout', 'stderr'], array_keys($r['json']), 'the RunResult record');
        return $r['json'];
    }

    /** @return array<string, array{0: string, 1: string, 2: string, 3: string}> language, hello, compile error, runtime error */
    public static function programs(): array
    {
        return [
            'c' => ['c', "#include <stdio.h>\nint main(void) { char s[100]; if (fgets(s, sizeof s, stdin)) printf(\"hi %s\", s); return 0; }\n",
                "int main(void) { return y; }\n", "#include <stdlib.h>\nint main(void) { abort(); }\n"],
            'cpp' => ['cpp', "#include <iostream>\n#include <string>\nint main() { std::string s; std::getline(std::cin, s); std::cout << \"hi \" << s << std::endl; }\n",
                "int main() { undeclared(); }\n", "#include <vector>\nint main() { std::vector<int> v; return v.at(3); }\n"],
            'python3' => ['python3', "print('hi', input())\n", "print('x'\n", "print([1][2])\n"],
        ];
    }

    public function testLanguagesListsEveryEnvironmentWithItsVersion(): void
    {
        $r = self::jobe('GET', 'languages');
        $this->assertSame(200, $r['status'], $r['raw']);
        $ids = array_column($r['json'], 0);
        $this->assertSame(['c', 'cpp', 'python3'], array_values(array_intersect(['c', 'cpp', 'python3'], $ids)));
        foreach ($r['json'] as [$id, $version]) {
            $this->assertMatchesRegularExpression('/^\d+(\.\d+)+$/', $version, $id . "'s version");
        }
    }

    /** @dataProvider programs */
    public function testOutcomesOfEachLanguage(string $lang, string $hello, string $compileError, string $runtimeError): void
    {
        $r = $this->submit($lang, $hello, ['input' => "there\n"]);
        $this->assertSame([15, "hi there\n", '', '', null], [$r['outcome'], $r['stdout'], $r['stderr'], $r['cmpinfo'], $r['run_id']]);
        $r = $this->submit($lang, $compileError);
        $this->assertSame(11, $r['outcome']);
        $this->assertNotSame('', $r['cmpinfo'], 'a compile error explains itself in cmpinfo');
        $this->assertSame(12, $this->submit($lang, $runtimeError)['outcome']);
    }

    public function testExitCodeAloneIsSuccessAsInJobe(): void
    {
        $r = $this->submit('c', "#include <stdio.h>\nint main(void) { puts(\"out\"); return 3; }\n");
        $this->assertSame([15, "out\n"], [$r['outcome'], $r['stdout']], 'a non-zero exit code alone');
        $r = $this->submit('python3', "import sys\nprint('x', file=sys.stderr)\n");
        $this->assertSame([12, "x\n"], [$r['outcome'], $r['stderr']], 'stderr output makes a runtime error');
    }

    public function testLimitsGiveTimeAndOutputOutcomes(): void
    {
        $this->assertSame(13, $this->submit('c', "int main(void) { for (;;); }\n", ['parameters' => ['cputime' => 1]])['outcome']);
        $this->assertSame(13, $this->submit('python3', "while True: pass\n", ['parameters' => ['cputime' => 1]])['outcome']);
        // endless output is Jobe's time limit too (its output cap ends the run)
        $this->assertSame(13, $this->submit('c', "#include <stdio.h>\nint main(void) { for (;;) printf(\"Hello\"); }\n", ['parameters' => ['cputime' => 2]])['outcome']);
        $r = $this->submit('c', "#include <stdio.h>\n#include <stdlib.h>\nint main(void) { puts(malloc(2000000000) ? \"allocated\" : \"limited\"); return 0; }\n");
        $this->assertSame("limited\n", $r['stdout'], 'memorylimit bounds the address space: a 2000 MB malloc fails (Jobe default 400 MB)');
        $r = $this->submit('c', "#include <stdio.h>\nvoid f(int i, int d) { if (i == 0) puts(\"no\"); else f(i + d, d); }\nint main(void) { f(3, 1); }\n");
        $this->assertSame(12, $r['outcome'], 'unbounded recursion crashes (no -O by default, as in Jobe)');
    }

    public function testParametersCompileArgsLinkArgsInterpreterArgsRunArgs(): void
    {
        $src = "#include <stdio.h>\n#include <math.h>\nint main(void) { printf(\"%d %.0f\\n\", VALUE, sqrt(VALUE)); return 0; }\n";
        $r = $this->submit('c', $src, ['parameters' => ['compileargs' => ['-DVALUE=49', '-std=c99'], 'linkargs' => ['-lm'], 'unknown_key' => 1]]);
        $this->assertSame([15, "49 7\n"], [$r['outcome'], $r['stdout']], $r['cmpinfo']);
        // Jobe's C defaults are -Wall -Werror -std=c99: an unused variable is a compile error
        $this->assertSame(11, $this->submit('c', "int main(void) { int unused; return 0; }\n")['outcome']);
        $this->assertSame(15, $this->submit('c', "int main(void) { int unused; return 0; }\n", ['parameters' => ['compileargs' => ['-std=c99']]])['outcome']);
        $r = $this->submit('cpp', "#include <cstdio>\nint main(int argc, char **argv) { for (int i = 1; i < argc; i++) std::puts(argv[i]); }\n",
            ['parameters' => ['runargs' => ['one', 'two words']]]);
        $this->assertSame("one\ntwo\nwords\n", $r['stdout'], 'runargs are words of a command line, as in Jobe');
        $r = $this->submit('python3', "print('not me')\n", ['parameters' => ['interpreterargs' => ['-c "print(\'Blah\')"']]]);
        $this->assertSame("Blah\n", $r['stdout']);
        $r = $this->submit('python3', "import sys\nprint(sys.argv[1:])\n", ['parameters' => ['runargs' => ['a', 'b']]]);
        $this->assertSame("['a', 'b']\n", $r['stdout']);
    }

    public function testSourceFileNameAndWritableWorkingDirectory(): void
    {
        $r = $this->submit('python3', "import sys\nprint(sys.argv[0])\nopen('out.txt', 'w').write('kept')\nprint(open('out.txt').read())\n",
            ['sourcefilename' => '__tester__.python3']);
        $this->assertSame([15, "__tester__.python3\nkept\n"], [$r['outcome'], $r['stdout']], $r['stderr']);
        $r = $this->submit('python3', "import os\nprint(sorted(os.listdir('.')))\n");
        $this->assertStringNotContainsString('out.txt', $r['stdout'], 'nothing of an earlier run is left in the working directory');
        $bad = self::jobe('POST', 'runs', ['run_spec' => ['language_id' => 'c', 'sourcecode' => 'x', 'sourcefilename' => '../etc/x.c']]);
        $this->assertSame([400, 'The sourcefilename for the run_spec is illegal'], [$bad['status'], $bad['json']]);
    }

    public function testNonUtf8OutputIsEscapedAsJobeDoes(): void
    {
        $r = $this->submit('c', "#include <stdio.h>\nint main(void) { printf(\"Hello world\\n\\01\\006\\300\\311\\n\"); }\n");
        $this->assertSame("Hello world\n\\x01\\x06\\xc0\\xc9\n", $r['stdout']);
        $r = $this->submit('python3', "print('Un rôle délétère')\n");
        $this->assertSame("Un rôle délétère\n", $r['stdout'], 'valid UTF-8 passes unchanged');
    }

    public function testSupportFilesPutHeadAndFileList(): void
    {
        $id = 'jobetest' . bin2hex(random_bytes(8));
        $this->assertSame(404, self::jobe('HEAD', 'files/' . $id)['status']);
        $run = fn (): array => self::jobe('POST', 'runs', ['run_spec' => ['language_id' => 'python3', 'sourcecode' => "print(open('data.txt').read(), end='')\n",
            'file_list' => [[$id, 'data.txt']]]]);
        $missing = $run();
        $this->assertSame([404, 'One or more of the specified files is missing/unavailable'], [$missing['status'], $missing['json']]);
        $put = self::jobe('PUT', 'files/' . $id, ['file_contents' => base64_encode("line 1\nline 2\n")]);
        $this->assertSame(204, $put['status'], $put['raw']);
        $this->assertSame(204, self::jobe('HEAD', 'files/' . $id)['status']);
        $r = $run();
        $this->assertSame([200, 15, "line 1\nline 2\n"], [$r['status'], $r['json']['outcome'], $r['json']['stdout']]);
        $bad = self::jobe('PUT', 'files/' . $id, ['file_contents' => '***not base64***']);
        $this->assertSame(400, $bad['status']);
        $this->assertStringContainsString('not valid base-64', $bad['json']);
        $this->assertSame(400, self::jobe('PUT', 'files/short', ['file_contents' => ''])['status'], 'ids are 8+ letters and digits');
        $prog = self::jobe('POST', 'runs', ['run_spec' => ['language_id' => 'c', 'sourcecode' => 'int main(void){return 0;}', 'file_list' => [[$id, 'prog']]]]);
        $this->assertSame(400, $prog['status'], 'a support file may not replace the program');
    }

    public function testAKeySeesAndOverwritesOnlyItsOwnFiles(): void
    {
        if (!isset(self::$keys[2]) || self::$rates[2] < 20) {
            $this->markTestSkipped('ENGINE_JOBE_KEYS has no third key (another course; bin/prutor writes one)');
        }
        $a = ['X-API-KEY: ' . self::$keys[0]];
        $b = ['X-API-KEY: ' . self::$keys[2]];
        // CodeRunner's ids are the MD5 of the contents: another course can know or guess them
        $id = md5('a support file ' . bin2hex(random_bytes(8)));
        $run = static fn (array $key): array => self::jobe('POST', 'runs', ['run_spec' => ['language_id' => 'python3',
            'sourcecode' => "print(open('data.txt').read(), end='')\n", 'file_list' => [[$id, 'data.txt']]]], $key);
        $this->assertSame(204, self::jobe('PUT', 'files/' . $id, ['file_contents' => base64_encode("course A's data\n")], $a)['status']);
        $this->assertSame(204, self::jobe('HEAD', 'files/' . $id, null, $a)['status']);
        $this->assertSame(404, self::jobe('HEAD', 'files/' . $id, null, $b)['status'], "key B cannot tell that A holds the id");
        $r = $run($b);
        $this->assertSame([404, 'One or more of the specified files is missing/unavailable'], [$r['status'], $r['json']], "B's run cannot read A's file");
        // B puts the same id (as CodeRunner does on that 404): its own copy, A's is untouched
        $this->assertSame(204, self::jobe('PUT', 'files/' . $id, ['file_contents' => base64_encode("course B's data\n")], $b)['status']);
        $this->assertSame([200, "course B's data\n"], [($r = $run($b))['status'], $r['json']['stdout'] ?? $r['raw']]);
        $this->assertSame([200, "course A's data\n"], [($r = $run($a))['status'], $r['json']['stdout'] ?? $r['raw']], "B's PUT did not overwrite A's file");
    }

    public function testFilePutsAreRateLimitedOnceForAllReplicas(): void
    {
        if (!isset(self::$keys[1]) || self::$rates[1] < 1 || self::$rates[1] > 50) {
            $this->markTestSkipped('ENGINE_JOBE_KEYS has no second, low-rate key (bin/prutor writes one)');
        }
        $env = getenv();
        $budget = \Prutor\Engine\Config::fromEnv($env)->jobePutsPerHour[self::$keys[1]];
        $h = ['X-API-KEY: ' . self::$keys[1]];
        $put = static fn (): array => self::jobe('PUT', 'files/ratetest' . bin2hex(random_bytes(6)), ['file_contents' => base64_encode('x')], $h);
        // replica 1: the engine behind HAProxy (Apache's workers, their APCu)
        $first = [$put()['status'], $put()['status']];
        // replica 2: this PHP process (its own APCu), the engine's own admission code against
        // the stack's memcached, as another engine container would run it
        $config = \Prutor\Engine\Config::fromEnv(['PRUTOR_VAR' => sys_get_temp_dir() . '/prutor-jobe-replica'] + $env);
        $limiter = \Prutor\Engine\Jobe\RateLimit::of($config);
        $replica = new \Prutor\Engine\Jobe\Access($config, $limiter);
        $admitted = 0;
        for ($i = 0; $i <= $budget; $i++) {
            try {
                $replica->admit(['HTTP_X_API_KEY' => self::$keys[1], 'REMOTE_ADDR' => '127.0.0.1'], 'puts');
                $admitted++;
            } catch (\Prutor\Engine\HttpError $e) {
                $this->assertSame(429, $e->status);
                break;
            }
        }
        $this->assertSame('memcached', $limiter->backend(), 'the stack\'s memcached counted');
        $this->assertLessThanOrEqual($budget, $admitted + count(array_keys($first, 204)),
            "the key's $budget PUTs an hour hold across both replicas (counted per replica, each would allow $budget)");
        $r = $put();
        $this->assertSame([429, 'Max file PUT rate for this server exceeded'], [$r['status'], $r['json']], 'replica 1 sees what replica 2 spent');
        $this->assertGreaterThan(0, (int) ($r['headers']['retry-after'] ?? 0));
        $this->assertSame(404, self::jobe('HEAD', 'files/ratetest000000', null, $h)['status'], 'HEAD is not counted');
        $this->assertSame(204, self::jobe('PUT', 'files/ratetest' . bin2hex(random_bytes(6)), ['file_contents' => base64_encode('x')])['status'], 'another key is not affected');
    }

    public function testErrorsAreJsonStringsWithJobeStatuses(): void
    {
        $cases = [
            [['run_spec' => ['language_id' => 'nosuchlanguage', 'sourcecode' => 'x']], 400, "Language 'nosuchlanguage' is not known"],
            [['run_spec' => ['sourcecode' => 'x']], 400, "run_spec is missing the required attribute 'language_id'"],
            [['run_spec' => ['language_id' => 'python3']], 400, "run_spec is missing the required attribute 'sourcecode'"],
            [['nothing' => 1], 400, 'No run_spec attribute found in post data'],
        ];
        foreach ($cases as [$body, $status, $message]) {
            $r = self::jobe('POST', 'runs', $body);
            $this->assertSame([$status, $message], [$r['status'], $r['json']], $r['raw']);
        }
        $this->assertSame(404, self::jobe('GET', 'nosuch')['status']);
        $this->assertSame(405, self::jobe('GET', 'runs')['status']);
        $r = self::jobe('POST', 'runs', ['run_spec' => ['language_id' => 'python3', 'sourcecode' => '!** TESTING OVERLOAD EXCEPTION **!']]);
        $this->assertSame([200, 21], [$r['status'], $r['json']['outcome']], "Jobe's overload test hook");
    }

    public function testAnonymousCallersAreRefused(): void
    {
        $f = self::$f ?? throw new \LogicException('no fixture');
        $spec = ['run_spec' => ['language_id' => 'c', 'sourcecode' => "int main(void){return 0;}\n"]];
        // a caller whose address the admin did not open (as HAProxy reports it to the engine)
        $far = ['X-Forwarded-For: 203.0.113.7'];
        foreach ([['POST', 'runs', $spec], ['GET', 'languages', null], ['PUT', 'files/abcdefgh12', ['file_contents' => '']], ['HEAD', 'files/abcdefgh12', null]] as [$m, $res, $body]) {
            $r = self::jobe($m, $res, $body, $far, $f->engineUrl);
            $this->assertSame(403, $r['status'], "$m $res without a key");
        }
        $r = self::jobe('POST', 'runs', $spec, ['X-API-KEY: not-a-key', ...$far], $f->engineUrl);
        $this->assertSame([403, 'Unknown API key'], [$r['status'], $r['json']]);
        // the client cannot claim an address itself: HAProxy appends the one it saw, the engine takes that one
        $r = self::jobe('POST', 'runs', $spec, ['X-Forwarded-For: 127.0.0.1, 203.0.113.7'], $f->engineUrl);
        $this->assertSame(403, $r['status'], 'a forged first X-Forwarded-For entry is ignored');
        // a student's session and CSRF token are no key
        $student = $f->call('POST', self::API . 'runs', $spec, 'student', true, $f->engineUrl, $far);
        $this->assertSame(403, $student['status'], 'a signed-in student without a key');
        $open = array_filter(explode(',', (string) getenv('ENGINE_JOBE_OPEN_ADDRESSES')));
        if (!in_array('127.0.0.1', array_map('trim', $open), true)) {
            $this->assertSame(403, self::jobe('POST', 'runs', $spec, [])['status'], 'anonymous through HAProxy');
        }
        $log = (string) @file_get_contents(rtrim((string) (getenv('PRUTOR_VAR') ?: dirname(__DIR__, 3) . '/var'), '/') . '/telemetry/engine.jsonl');
        $this->assertStringContainsString('"kind":"jobe_refused","address":"203.0.113.7"', $log, 'refusals are logged with the address');
    }

    public function testRunsAreLoggedWithTheKeyNotTheKeyItself(): void
    {
        $marker = 'logged' . bin2hex(random_bytes(4));
        $this->submit('python3', "print('$marker')\n");
        $log = (string) @file_get_contents(rtrim((string) (getenv('PRUTOR_VAR') ?: dirname(__DIR__, 3) . '/var'), '/') . '/telemetry/engine.jsonl');
        $id = substr(hash('sha256', self::$keys[0]), 0, 12);
        $this->assertMatchesRegularExpression('/"kind":"jobe_run","caller":"key:' . $id . '","address":"[^"]+","language":"python3","outcome":15/', $log);
        $this->assertStringNotContainsString(self::$keys[0], $log, 'the key itself is never logged');
    }

    public function testOverRateCallsGet429(): void
    {
        if (!isset(self::$keys[1]) || self::$rates[1] < 1 || self::$rates[1] > 50) {
            $this->markTestSkipped('ENGINE_JOBE_KEYS has no second, low-rate key (bin/prutor writes one)');
        }
        $h = ['X-API-KEY: ' . self::$keys[1]];
        // cheap runs (the overload hook): counted like any run, no sandbox needed
        $spec = ['run_spec' => ['language_id' => 'python3', 'sourcecode' => '!** TESTING OVERLOAD EXCEPTION **!']];
        $statuses = [];
        for ($i = 0; $i <= self::$rates[1]; $i++) {
            $statuses[] = self::jobe('POST', 'runs', $spec, $h)['status'];
        }
        $this->assertContains(429, $statuses, 'at most ' . self::$rates[1] . ' runs an hour for this key');
        $this->assertLessThanOrEqual(self::$rates[1], count(array_keys($statuses, 200)));
        $r = self::jobe('POST', 'runs', $spec, $h);
        $this->assertSame([429, 'Max RUN rate for this server exceeded'], [$r['status'], $r['json']]);
        $this->assertGreaterThan(0, (int) ($r['headers']['retry-after'] ?? 0));
        $this->assertSame(200, self::jobe('GET', 'languages', null, $h)['status'], 'only runs are counted');
        $this->assertSame(15, $this->submit('c', "int main(void){return 0;}\n")['outcome'], 'another key is not affected');
    }

    /**
     * The attack: two runs of a CodeRunner course that sleep 4 s (asking cputime
     * 20) while the fixture's exam is open. Before the fix they held both slots and a
     * student's compile got 503 "busy". Now Jobe runs hold at most ENGINE_JOBE_SLOTS: the
     * second run gets Jobe's overload outcome after ENGINE_QUEUE_WAIT_MS, the student's
     * fresh compile (it needs a slot) is answered meanwhile, and the runs' CPU time is the
     * exam cap, not the 20 s asked. About 5 s.
     */
    public function testWithTheJobeLaneFullAStudentStillCompiles(): void
    {
        $f = self::$f ?? throw new \LogicException('no fixture');
        $slots = (int) (getenv('ENGINE_SLOTS') ?: 2);
        $jobeSlots = (int) (getenv('ENGINE_JOBE_SLOTS') ?: max(1, intdiv($slots, 2)));
        if ($slots < 2 || $jobeSlots !== 1) {
            $this->markTestSkipped("the test fills a lane of one Jobe slot out of two or more (ENGINE_SLOTS $slots, ENGINE_JOBE_SLOTS $jobeSlots)");
        }
        $waitS = (int) (getenv('ENGINE_QUEUE_WAIT_MS') ?: 3000) / 1000;
        $cap = (int) (getenv('ENGINE_JOBE_EXAM_CPU_TIME_MS') ?: 5000);
        $sleepS = (int) ceil($waitS) + 1;
        $source = "#include <unistd.h>\nint main(void) { sleep($sleepS); return 0; }\n/* lane {$f->tag} */\n";
        $mh = curl_multi_init();
        $handle = static function (string $url, array $body, array $headers) use ($mh) {
            $ch = curl_init($url);
            curl_setopt_array($ch, [CURLOPT_POST => true, CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 60,
                CURLOPT_POSTFIELDS => json_encode($body), CURLOPT_HTTPHEADER => ['Content-Type: application/json', ...$headers]]);
            curl_multi_add_handle($mh, $ch);
            return $ch;
        };
        $pump = static function (float $seconds) use ($mh): void {
            $until = microtime(true) + $seconds;
            do {
                curl_multi_exec($mh, $running);
                curl_multi_select($mh, 0.05);
            } while ($running > 0 && microtime(true) < $until);
        };
        $runs = [];
        for ($i = 0; $i < 2; $i++) {
            $runs[] = $handle($f->url . self::API . 'runs', ['run_spec' => ['language_id' => 'c', 'sourcecode' => $source,
                'parameters' => ['cputime' => 20]]], ['X-API-KEY: ' . self::$keys[0]]);
        }
        $pump(0.5);
        $student = $handle($f->url . '/compile', ['assignment_id' => $f->ids['practice'],
            'code' => "int main(void) { return 0; }\n/* student during jobe {$f->tag} */\n"],
            ['Cookie: ' . $f->sessions['student']['cookie'], 'X-CSRF-Token: ' . $f->sessions['student']['csrf']]);
        $pump(60);
        $body = json_decode((string) curl_multi_getcontent($student), true);
        $this->assertSame([200, true], [(int) curl_getinfo($student, CURLINFO_RESPONSE_CODE), $body['compiled'] ?? null],
            'a student\'s compile with the Jobe lane full: ' . curl_multi_getcontent($student));
        $this->assertLessThan($sleepS, (float) curl_getinfo($student, CURLINFO_TOTAL_TIME), 'answered before the Jobe runs end');
        $outcomes = [];
        foreach ($runs as $ch) {
            $this->assertSame(200, (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE), (string) curl_multi_getcontent($ch));
            $outcomes[] = json_decode((string) curl_multi_getcontent($ch), true)['outcome'] ?? null;
        }
        sort($outcomes);
        $this->assertSame([15, 21], $outcomes, 'one run in the lane, the other told the server is overloaded');
        $log = (string) @file_get_contents(rtrim((string) (getenv('PRUTOR_VAR') ?: dirname(__DIR__, 3) . '/var'), '/') . '/telemetry/engine.jsonl');
        preg_match_all('/"kind":"jobe_run".*"cpu_limit_ms":(\d+)/', $log, $m);
        $this->assertSame([$cap, $cap], array_map('intval', array_slice($m[1], -2)), 'cputime 20 asked, the exam cap given');
    }

    public function testCallerLimitsAboveTheMaximaAreRefusedOrClamped(): void
    {
        $r = self::jobe('POST', 'runs', ['run_spec' => ['language_id' => 'c', 'sourcecode' => "int main(void){return 0;}\n", 'parameters' => ['cputime' => 151]]]);
        $this->assertSame(400, $r['status']);
        $this->assertStringStartsWith('cputime exceeds maximum allowed on this Jobe server', $r['json']);
        $r = self::jobe('POST', 'runs', ['run_spec' => ['language_id' => 'python3', 'sourcecode' => "pass\n", 'parameters' => ['cputime' => 21]]]);
        $this->assertSame(400, $r['status'], 'the environment maximum is 20 s');
        // 8 GiB asked, the environment's 1 GiB maximum given: touching 1.5 GiB fails
        $big = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) { size_t n = 1536UL << 20; char *p = malloc(n); if (!p) { puts(\"limited\"); return 0; } memset(p, 1, n); puts(\"allocated\"); return 0; }\n";
        $r = $this->submit('c', $big, ['parameters' => ['memorylimit' => 8192]]);
        $this->assertSame("limited\n", $r['stdout'], 'memorylimit above the maximum is clamped to it');
        // numprocs 1000 asked: forks stop at the clamped process limit
        $fork = "#include <stdio.h>\n#include <unistd.h>\n#include <signal.h>\nint main(void) { int ok = 0; pid_t kids[1000]; for (int i = 0; i < 1000; i++) { pid_t p = fork(); if (p == 0) { pause(); _exit(0); } if (p < 0) break; kids[ok++] = p; } for (int i = 0; i < ok; i++) kill(kids[i], SIGKILL); printf(\"%d\\n\", ok); return 0; }\n";
        $r = $this->submit('c', $fork, ['parameters' => ['numprocs' => 1000, 'compileargs' => ['-std=gnu99']]]);
        $this->assertSame(15, $r['outcome'], $r['stderr']);
        $this->assertLessThan(64, (int) $r['stdout'], 'numprocs is clamped to the maximum (64 processes)');
        $this->assertGreaterThan(0, (int) $r['stdout']);
    }
}
