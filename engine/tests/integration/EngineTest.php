<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;

/**
 * Integration tests against the running engine (through HAProxy when ENGINE_TEST_URL
 * points at it): sessions, CSRF, authorisation, verdicts, query counts, compile once,
 * the hostile suite and admission control (the Jobe API: JobeTest).
 */
final class EngineTest extends TestCase
{
    private static ?Fixture $f = null;

    private const SUM = "#include <stdio.h>\nint main(void){long a,b; if(scanf(\"%ld %ld\",&a,&b)!=2) return 1; printf(\"%ld\\n\",a+b); return 0;}\n";
    private const HELLO = "#include <stdio.h>\nint main(void){puts(\"hello\");return 0;}\n";

    public static function setUpBeforeClass(): void
    {
        self::$f = Fixture::open();
    }

    public static function tearDownAfterClass(): void
    {
        self::$f?->cleanup();
    }

    private static function f(): Fixture
    {
        return self::$f ?? throw new \LogicException('no fixture');
    }

    /** @return array<string, mixed> */
    private function exec(string $code, string $input = '', ?int $aid = null): array
    {
        $r = self::f()->call('POST', '/execute', ['assignment_id' => $aid ?? self::f()->ids['practice'], 'code' => $code, 'input' => $input]);
        $this->assertSame(200, $r['status'], $r['raw']);
        return $r['json'];
    }

    private function assertHealthyAfter(string $what): void
    {
        $r = $this->exec(self::HELLO . '/* after ' . $what . ' */');
        $this->assertSame('accepted', $r['verdict'], 'a normal program after ' . $what);
        $this->assertSame("hello\n", $r['stdout']);
    }

    public function testHealthReportsComponentsAndSandboxMode(): void
    {
        $r = self::f()->call('GET', '/engine/healthz', null, null);
        $this->assertSame(200, $r['status'], $r['raw']);
        $this->assertSame('ok', $r['json']['status']);
        $this->assertContains($r['json']['components']['sandbox']['mode'], ['namespaces', 'fallback']);
        // what binds a step's memory, processes and CPU (sandbox/README.md, cgroups)
        $this->assertContains($r['json']['components']['sandbox']['cgroups'], ['v2', 'v1', 'none']);
        $this->assertSame('ok', $r['json']['components']['mysql']);
        $this->assertSame('ok', $r['json']['components']['memcached']);
    }

    public function testNoSessionIs401AndBadCsrfIs403AndBadInputIs400(): void
    {
        $f = self::f();
        $r = $f->call('POST', '/compile', ['assignment_id' => 1, 'code' => 'x'], null);
        $this->assertSame(401, $r['status']);
        $this->assertIsString($r['json']['error']);
        $r = $f->call('POST', '/compile', ['assignment_id' => 1, 'code' => 'x'], 'student', false);
        $this->assertSame(403, $r['status']);
        $r = $f->call('POST', '/compile', ['code' => 'x']);
        $this->assertSame(400, $r['status']);
        $this->assertStringContainsString('assignment_id', $r['json']['error']);
        $r = $f->call('POST', '/compile', ['assignment_id' => $f->ids['others'], 'code' => self::HELLO]);
        $this->assertSame(404, $r['status'], 'another student\'s assignment');
        $r = $f->call('POST', '/compile', ['assignment_id' => $f->ids['closed'], 'code' => self::HELLO]);
        $this->assertSame(404, $r['status'], 'an event outside its window');
        $r = $f->call('GET', '/compile');
        $this->assertSame(405, $r['status']);
    }

    public function testAnExecuteStoresItsCodeExactlyOnceAndOutsideItsWindowRunsNothing(): void
    {
        $f = self::f();
        $count = static fn (array $m0, array $m1, string $k): int => (int) ($m1[$k] ?? 0) - (int) ($m0[$k] ?? 0);
        $m0 = $f->metrics();
        foreach (['others' => 'another student\'s assignment', 'closed' => 'an event outside its window'] as $k => $what) {
            $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids[$k], 'code' => self::HELLO . "/* {$f->tag} refused */"]);
            $this->assertSame(404, $r['status'], $what . ': ' . $r['raw']);
        }
        $m1 = $f->metrics();
        $this->assertSame(0, $count($m0, $m1, 'gcc'), 'nothing is compiled for a refused execute');
        $this->assertSame(0, $count($m0, $m1, 'run'), 'nothing is run for a refused execute');
        $n = $f->db->query("SELECT COUNT(*) FROM code WHERE code LIKE '%{$f->tag} refused%'")->fetchColumn();
        $this->assertEquals(0, $n, 'no code is stored for a refused execute');
        // the code is stored while the sandbox compiles, or after it: once, whichever way the job goes
        $jobs = [
            'compiled and run' => self::HELLO . "/* {$f->tag} stored once */",
            'rejected by the compiler' => "int main(void) { return undeclared; } /* {$f->tag} stored once */",
            'run from the binary cache' => self::HELLO . "/* {$f->tag} stored once */",
        ];
        $rowsOf = fn (): int => (int) $f->db->query('SELECT COUNT(*) FROM code WHERE assignment_id = ' . $f->ids['open'])->fetchColumn();
        foreach ($jobs as $job => $code) {
            $before = $rowsOf();
            $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['open'], 'code' => $code]);
            $this->assertSame(200, $r['status'], $job . ': ' . $r['raw']);
            $this->assertSame($before + 1, $rowsOf(), $job . ': one code row per execute');
            $row = $f->db->query('SELECT c.code, c.save_trigger, (SELECT COUNT(*) FROM executions e WHERE e.code_id = c.id) AS runs
                FROM code c WHERE c.id = ' . (int) $r['json']['code_id'])->fetch();
            $this->assertSame(['code' => $code, 'save_trigger' => 'execute', 'runs' => 1], $row, $job);
        }
        $this->assertSame("hello\n", $r['json']['stdout']);
        $this->assertTrue($r['json']['from_cache']);
    }

    public function testCompileStoresCodeInAtMostThreeQueriesAndExecuteEvaluateDoNotRunGcc(): void
    {
        $f = self::f();
        $code = self::SUM . '/* ' . $f->tag . ' once */';
        $m0 = $f->metrics();
        $r = $f->call('POST', '/compile', ['assignment_id' => $f->ids['open'], 'code' => $code]);
        $this->assertSame(200, $r['status'], $r['raw']);
        $this->assertTrue($r['json']['compiled']);
        $this->assertFalse($r['json']['from_cache']);
        $q = (int) $r['headers']['x-engine-queries'];
        $this->assertLessThanOrEqual(3, $q, 'queries per compile');
        $m1 = $f->metrics();
        $this->assertSame(1, $m1['gcc'] - $m0['gcc'], 'one gcc run for the compile');
        $rows = $f->db->query('SELECT c.save_trigger, k.success FROM code c JOIN compilations k ON k.code_id = c.id WHERE c.assignment_id = ' . $f->ids['open'])->fetchAll();
        $this->assertSame([['save_trigger' => 'compile', 'success' => 1]], $rows);

        $e = $f->call('POST', '/execute', ['assignment_id' => $f->ids['open'], 'code' => $code, 'input' => "40 2\n"]);
        $this->assertSame("42\n", $e['json']['stdout']);
        $this->assertTrue($e['json']['from_cache']);
        $qe = (int) $e['headers']['x-engine-queries'];
        $v = $f->call('POST', '/evaluate', ['assignment_id' => $f->ids['open']]);
        $this->assertSame(200, $v['status'], $v['raw']);
        $qv = (int) $v['headers']['x-engine-queries'];
        $m2 = $f->metrics();
        $this->assertSame(0, $m2['gcc'] - $m1['gcc'], 'no gcc run for execute and evaluate after the compile');
        $this->assertSame('accepted', $v['json']['verdict']);
        $this->assertEquals(10, $v['json']['score']);
        fwrite(STDERR, sprintf("\n[queries] compile=%d execute=%d evaluate=%d; [ms] compile=%.0f execute(cached)=%.0f evaluate(4 cases)=%.0f\n",
            $q, $qe, $qv, $r['ms'], $e['ms'], $v['ms']));
        // an event question's score is the automatic grader's (of the graded code, issue 12):
        // a student's Evaluate click leaves it (a trigger keeps it unless the grader sets graded_at)
        $score = $f->db->query('SELECT score FROM assignments WHERE id = ' . $f->ids['open'])->fetchColumn();
        $this->assertNull($score);
        $n = $f->db->query('SELECT COUNT(*) FROM evaluations WHERE assignment_id = ' . $f->ids['open'])->fetchColumn();
        $this->assertEquals(4, $n);
    }

    public function testARetriedRequestTakesOverTheClaimOfTheReplicaThatDied(): void
    {
        $f = self::f();
        $key = 'engine:inflight:' . $f->ids['other'];
        $body = ['assignment_id' => $f->ids['open'], 'code' => self::SUM];
        $id = static fn (string $n): array => ['X-Prutor-Request-Id: ' . $n . '-' . $f->tag];
        // a replica died holding the claim of HAProxy's request r1
        $f->mc->set($key, 'r1-' . $f->tag, 60);
        // a client cannot pose as that retry: HAProxy replaces the id (when the suite runs through it)
        if ($f->url !== $f->engineUrl) {
            $r = $f->call('POST', '/compile', $body, 'other', true, null, $id('r1'));
            $this->assertSame(429, $r['status'], 'a forged request id through HAProxy: ' . $r['raw']);
        }
        // HAProxy resends r1 to another replica: served (the assignment is not this student's: 404)
        $r = $f->call('POST', '/compile', $body, 'other', true, $f->engineUrl, $id('r1'));
        $this->assertNotSame(429, $r['status'], 'the retry of the request that held the claim: ' . $r['raw']);
        $this->assertFalse($f->mc->get($key), 'the claim is released after the retried request');
        // any other request of the student still waits for the one in flight
        $f->mc->set($key, 'r2-' . $f->tag, 60);
        $r = $f->call('POST', '/compile', $body, 'other', true, $f->engineUrl, $id('r3'));
        $this->assertSame(429, $r['status'], $r['raw']);
        $r = $f->call('POST', '/compile', $body, 'other', true, $f->engineUrl);
        $this->assertSame(429, $r['status'], 'without an id: ' . $r['raw']);
        $f->mc->delete($key);
    }

    public function testCompilerMessagesAreStructured(): void
    {
        $r = self::f()->call('POST', '/compile', ['assignment_id' => self::f()->ids['practice'], 'code' => "int main(void){\n  int x = 1\n  return x;\n}\n"]);
        $this->assertSame(200, $r['status']);
        $this->assertFalse($r['json']['compiled']);
        $this->assertSame('compilation_error', $r['json']['verdict']);
        $first = $r['json']['messages'][0];
        $this->assertSame('error', $first['severity']);
        $this->assertContains($first["line"], [2, 3]);
        $this->assertGreaterThan(0, $first['column']);
        $this->assertStringContainsString('expected', $r['json']['raw']);
    }

    /** @return array<string, array{string, string, int, int}> code, verdict, visible passed, hidden passed */
    public static function programs(): array
    {
        return [
            'accepted' => [self::SUM, 'accepted', 2, 2],
            // overflows only on a hidden case: the overall verdict says no more than that
            'wrong on a hidden case' => ["#include <stdio.h>\nint main(void){int a,b; scanf(\"%d %d\",&a,&b); printf(\"%d\\n\",a+b); return 0;}\n", 'hidden_failed', 2, 1],
            'runtime error' => ["#include <stdio.h>\nint main(void){int *p = 0; long a,b; scanf(\"%ld %ld\",&a,&b); if (a < 0) *p = 1; printf(\"%ld\\n\",a+b); return 0;}\n", 'runtime_error', 1, 1],
            'compile error' => ["int main(void){ return x; }\n", 'compilation_error', 0, 0],
        ];
    }

    /** @dataProvider programs */
    public function testVerdictsOnVisibleAndHiddenCases(string $code, string $verdict, int $visible, int $hidden): void
    {
        $f = self::f();
        $r = $f->call('POST', '/evaluate', ['assignment_id' => $f->ids['practice'], 'code' => $code]);
        $this->assertSame(200, $r['status'], $r['raw']);
        $this->assertSame($verdict, $r['json']['verdict']);
        $vis = array_values(array_filter($r['json']['cases'], static fn ($c) => $c['visibility'] === 'visible'));
        $hid = array_values(array_filter($r['json']['cases'], static fn ($c) => $c['visibility'] === 'hidden'));
        $this->assertSame($visible, count(array_filter($vis, static fn ($c) => $c['passed'])));
        $this->assertSame($hidden, count(array_filter($hid, static fn ($c) => $c['passed'])));
        $this->assertArrayHasKey('expected', $vis[0]);
        $this->assertArrayHasKey('actual', $vis[0]);
        $this->assertArrayNotHasKey('expected', $hid[0]);
        $this->assertArrayNotHasKey('actual', $hid[0]);
        $this->assertArrayNotHasKey('input', $hid[0]);
        if ($verdict === 'runtime_error') {
            $bad = array_values(array_filter($vis, static fn ($c) => !$c['passed']));
            $this->assertSame('SIGSEGV', $bad[0]['signal_name']);
        }
    }

    public function testStaffEvaluateStoresNothing(): void
    {
        $f = self::f();
        $before = $f->db->query('SELECT COUNT(*) FROM evaluations')->fetchColumn();
        $r = $f->call('POST', '/evaluate', ['problem_id' => $f->ids['problem'], 'code' => self::SUM], 'staff');
        $this->assertSame(200, $r['status'], $r['raw']);
        $this->assertSame('accepted', $r['json']['verdict']);
        $this->assertFalse($r['json']['stored']);
        $this->assertSame($before, $f->db->query('SELECT COUNT(*) FROM evaluations')->fetchColumn());
        $r = $f->call('POST', '/evaluate', ['problem_id' => $f->ids['problem'], 'code' => self::SUM], 'student');
        $this->assertSame(403, $r['status']);
    }

    /** @return array<string, array{string, list<string>}> */
    public static function hostile(): array
    {
        $var = (string) (getenv('PRUTOR_VAR') ?: dirname(__DIR__, 3) . '/var');
        return [
            'infinite loop' => ["int main(void){ volatile unsigned long i = 0; for (;;) i++; }", ['time_limit']],
            // a bomb ends on whichever bound it reaches first: CPU/wall time or the memory its copies take
            'fork bomb' => ["#include <unistd.h>\nint main(void){ for (;;) fork(); }", ['time_limit', 'memory_limit']],
            'thread bomb' => ["#include <pthread.h>\nstatic void *spin(void *a){ for(;;); return a; }\nint main(void){ pthread_t t; for (;;) pthread_create(&t, 0, spin, 0); }", ['time_limit', 'memory_limit']],
            '4 GB malloc' => ["#include <stdlib.h>\n#include <string.h>\nint main(void){ for (int i = 0; i < 64; i++) { char *p = malloc(64 << 20); if (!p) return 3; memset(p, 1, 64 << 20); } return 0; }", ['memory_limit']],
            'huge stack' => ["int f(int n){ volatile char b[1 << 16]; for (int i = 0; i < (1 << 16); i += 512) b[i] = (char) n; return f(n + 1) + b[n & 1023]; }\nint main(void){ return f(1); }", ['memory_limit']],
            '1 GB file' => ["#include <stdio.h>\n#include <string.h>\nint main(void){ static char b[1 << 20]; memset(b, 'x', sizeof b); FILE *f = fopen(\"/tmp/big\", \"w\"); if (!f) f = fopen(\"big\", \"w\"); if (!f) return 4; for (int i = 0; i < 1024; i++) fwrite(b, 1, sizeof b, f); fclose(f); return 0; }", ['output_limit']],
            '100 MB output' => ["#include <stdio.h>\nint main(void){ for (long i = 0; i < 10000000; i++) fputs(\"123456789\\n\", stdout); return 0; }", ['output_limit']],
            'TCP connect' => ["#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <stdio.h>\nint main(void){ int s = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(8081); a.sin_addr.s_addr = inet_addr(\"127.0.0.1\"); printf(\"%d\\n\", connect(s, (void *)&a, sizeof a)); return 0; }", ['forbidden_syscall']],
            'read secrets' => ["#include <stdio.h>\nint main(void){ const char *p[] = {\"/etc/shadow\", \"$var/prutor.env\", \"$var/engine/httpd.conf\", \"/proc/1/environ\", \"/etc/prutor/sandbox.conf\"}; for (int i = 0; i < 5; i++) { FILE *f = fopen(p[i], \"r\"); if (!f) { puts(\"denied\"); continue; } char b[256]; size_t n = fread(b, 1, 255, f); b[n] = 0; printf(\"OPEN %s %s\\n\", p[i], b); } return 0; }", ['accepted']],
            'sleep past wall' => ["#include <unistd.h>\nint main(void){ sleep(30); return 0; }", ['time_limit']],
            'background child' => ["#include <unistd.h>\n#include <stdio.h>\nint main(void){ if (fork() == 0) { setsid(); close(1); close(2); for (;;) sleep(1); } puts(\"parent done\"); return 0; }", ['accepted']],
            'kill parent' => ["#include <signal.h>\n#include <unistd.h>\n#include <stdio.h>\nint main(void){ kill(getppid(), SIGKILL); kill(-1, SIGKILL); puts(\"still here\"); return 0; }", ['accepted', 'runtime_error']],
            'exec a shell' => ["#include <unistd.h>\nint main(void){ execl(\"/bin/sh\", \"sh\", \"-c\", \"id\", (char *)0); return 9; }", ['forbidden_syscall']],
        ];
    }

    /**
     * @dataProvider hostile
     * @param list<string> $verdicts
     */
    public function testHostileProgramIsContained(string $code, array $verdicts): void
    {
        $f = self::f();
        $t = microtime(true);
        $r = $this->exec($code . "\n/* " . $f->tag . ' ' . $this->dataName() . " */\n");
        $ms = (microtime(true) - $t) * 1000;
        fwrite(STDERR, sprintf("\n[hostile] %-16s verdict=%-17s signal=%-7s cpu=%dms mem=%dKB request=%.0fms", $this->dataName(), $r['verdict'],
            $r['signal_name'] ?? '-', $r['time_ms'], $r['memory_kb'], $ms));
        $this->assertContains($r['verdict'], $verdicts, json_encode(array_intersect_key($r, array_flip(['verdict', 'exit_code', 'signal', 'time_ms', 'memory_kb', 'stderr']))));
        $this->assertLessThan(10000, $ms, 'the request came back in time');
        $this->assertLessThanOrEqual(65536, strlen($r['stdout']));
        foreach (['root:', 'ServerRoot', 'SESSION_SECRET', 'DB_PASSWORD', 'box /', (string) getenv('SESSION_SECRET')] as $secret) {
            $this->assertStringNotContainsString($secret, $r['stdout'], 'nothing of the engine leaks');
        }
        $this->assertStringNotContainsString('root:', $r['stdout']);
        usleep(100000);
        // this engine's slot users only (another checkout's engine may be running on the host)
        $base = (int) (getenv('SANDBOX_SLOT_BASE') ?: 0);
        $users = implode(',', array_map(static fn (int $k): string => 'prutor-box' . ($base + $k), range(0, max(1, (int) (getenv('ENGINE_SLOTS') ?: 2)) - 1)));
        $left = trim((string) shell_exec('ps -o user=,stat=,etime=,args= -u ' . escapeshellarg($users)));
        $this->assertSame('', $left, 'no process of a slot user is left');
        $this->assertHealthyAfter($this->dataName());
    }

    /**
     * One CPU per sandbox (sandbox/README.md): a student's program runs on the CPU its
     * launcher claimed and cannot spread its threads over the cores its classmates' compiles use.
     */
    public function testAStepKeepsTheCpuItWasGiven(): void
    {
        $code = "#define _GNU_SOURCE\n#include <sched.h>\n#include <stdio.h>\n#include <errno.h>\n"
            . "int main(void){ cpu_set_t s, all; CPU_ZERO(&s); sched_getaffinity(0, sizeof s, &s);"
            . " CPU_ZERO(&all); for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);"
            . " int r = sched_setaffinity(0, sizeof all, &all);"
            . " printf(\"cpus=%d widen=%d eperm=%d\\n\", CPU_COUNT(&s), r, r != 0 && errno == EPERM); return 0; }";
        $r = $this->exec($code . "\n/* " . self::f()->tag . " cpus */\n");
        $this->assertSame('accepted', $r['verdict'], json_encode($r));
        $this->assertMatchesRegularExpression('/^cpus=(\d+) widen=-1 eperm=1$/', trim($r['stdout']), 'widening the CPU set is refused');
        preg_match('/^cpus=(\d+)/', $r['stdout'], $m);
        $online = (int) trim((string) shell_exec('nproc'));
        if ($online >= 2 && getenv('SANDBOX_PIN_CPUS') !== '0') {
            $this->assertSame('1', $m[1], "the step runs on one CPU of the host's $online");
        }
    }

    public function testIncludeOfShadowDoesNotLeakThroughCompilerErrors(): void
    {
        $r = self::f()->call('POST', '/compile', ['assignment_id' => self::f()->ids['practice'], 'code' => "#include \"/etc/shadow\"\nint main(void){return 0;}\n"]);
        $this->assertSame(200, $r['status']);
        $this->assertFalse($r['json']['compiled']);
        $this->assertStringNotContainsString('root:', $r['json']['raw']);
        $this->assertStringNotContainsString('$y$', $r['json']['raw']);
        $this->assertStringNotContainsString('$6$', $r['json']['raw']);
        $this->assertHealthyAfter('include /etc/shadow');
    }

    /** HAProxy time syntax ("3s", "500ms", "2m", bare milliseconds) in seconds. */
    private static function haproxySeconds(string $t): float
    {
        if (!preg_match('/^(\d+)(us|ms|s|m|h)?$/', trim($t), $m)) {
            return 3.0;
        }
        $units = ['us' => 1e-6, 'ms' => 1e-3, 's' => 1.0, 'm' => 60.0, 'h' => 3600.0, '' => 1e-3];
        return (int) $m[1] * $units[$m[2] ?? ''];
    }

    public function testMoreRequestsThanSlotsGetQuickBusyAndTheRestComplete(): void
    {
        $f = self::f();
        $n = (int) (getenv('ENGINE_TEST_BURST') ?: 10);
        $code = "#include <unistd.h>\n#include <stdio.h>\nint main(void){ usleep(2500000); puts(\"slept\"); return 0; }\n/* " . $f->tag . " burst */";
        $this->exec($code . ' ');   // warm the binary cache (so the burst measures runs only)
        $mh = curl_multi_init();
        $hs = [];
        // one student each: a student may have one request in flight (see testOneStudentCannotHoldTwoSlots)
        $n = min($n, Fixture::BURST_USERS);
        for ($i = 0; $i < $n; $i++) {
            $who = 'burst' . $i;
            $ch = curl_init($f->url . '/execute');
            curl_setopt_array($ch, [CURLOPT_POST => true, CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 60,
                CURLOPT_POSTFIELDS => json_encode(['assignment_id' => $f->ids['practice_' . $who], 'code' => $code, 'input' => '']),
                CURLOPT_HTTPHEADER => ['Content-Type: application/json', 'Cookie: ' . $f->sessions[$who]['cookie'], 'X-CSRF-Token: ' . $f->sessions[$who]['csrf']]]);
            curl_multi_add_handle($mh, $ch);
            $hs[] = $ch;
        }
        $t0 = microtime(true);
        do {
            curl_multi_exec($mh, $running);
            curl_multi_select($mh, 0.05);
        } while ($running > 0);
        $ok = 0;
        $busy = 0;
        $busyMax = 0.0;
        foreach ($hs as $ch) {
            $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
            $body = json_decode((string) curl_multi_getcontent($ch), true);
            $t = (float) curl_getinfo($ch, CURLINFO_TOTAL_TIME);
            if ($status === 200) {
                $this->assertSame('accepted', $body['verdict']);
                $this->assertSame("slept\n", $body['stdout']);
                $ok++;
            } else {
                $this->assertSame(503, $status);
                $busyMax = max($busyMax, $t);
                $busy++;
            }
            curl_multi_remove_handle($mh, $ch);
        }
        fwrite(STDERR, sprintf("\n[burst] %d requests: %d completed, %d busy (slowest 503 after %.2fs), all done in %.2fs\n", $n, $ok, $busy, $busyMax, microtime(true) - $t0));
        $this->assertGreaterThan(0, $ok);
        $this->assertGreaterThan(0, $busy);
        // A 503 may wait once in HAProxy's queue and once for an engine slot, never longer.
        $bound = self::haproxySeconds((string) (getenv('ENGINE_TIMEOUT_QUEUE') ?: '3s'))
            + ((int) (getenv('ENGINE_QUEUE_WAIT_MS') ?: 3000)) / 1000 + 1.0;
        $this->assertLessThan($bound, $busyMax, '503 comes within the configured queue waits');
        $this->assertHealthyAfter('burst');
    }

    /**
     * The attack: six connections announce a large body and trickle a byte a
     * second, four through the front door ($f->url: HAProxy in make test) and two straight
     * to Apache. Meanwhile a student's run is answered at once (before the fix: 503 "busy"
     * after 3 s, for as long as they were held), and every slow one gets 408 once
     * ENGINE_BODY_TIMEOUT_S has passed: HAProxy's wait for the body, Apache's deadline.
     * About ENGINE_BODY_TIMEOUT_S (10 s).
     */
    public function testSlowBodiesHoldNoEngineConnection(): void
    {
        $f = self::f();
        $limitS = (int) (getenv('ENGINE_BODY_TIMEOUT_S') ?: 10);
        $open = static function (string $base, string $who) use ($f) {
            $u = parse_url($base);
            $sock = stream_socket_client('tcp://' . $u['host'] . ':' . ($u['port'] ?? 80), $errno, $err, 5);
            if ($sock === false) {
                throw new \RuntimeException("connect $base: $err");
            }
            fwrite($sock, "POST /compile HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 150000\r\n"
                . 'Cookie: ' . $f->sessions[$who]['cookie'] . "\r\nX-CSRF-Token: " . $f->sessions[$who]['csrf'] . "\r\n\r\n{");
            stream_set_blocking($sock, false);
            return $sock;
        };
        $slow = [];
        foreach (['burst0', 'burst1', 'burst2', 'burst3'] as $who) {
            $slow[$who] = ['sock' => $open($f->url, $who), 'got' => '', 'status' => null, 's' => null];
        }
        foreach (['burst4', 'burst5'] as $who) {
            $slow[$who] = ['sock' => $open($f->engineUrl, $who), 'got' => '', 'status' => null, 's' => null];
        }
        $t0 = microtime(true);
        usleep(500000);
        $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => self::HELLO . '/* slow bodies ' . $f->tag . ' */', 'input' => '']);
        $this->assertSame([200, 'accepted'], [$r['status'], $r['json']['verdict'] ?? null], $r['raw']);
        $this->assertLessThan(3000, $r['ms'], 'a student is served while the slow bodies arrive');
        $next = 0.0;
        while (microtime(true) - $t0 < $limitS + 5 && in_array(null, array_column($slow, 'status'), true)) {
            foreach ($slow as $who => &$c) {
                if ($c['status'] !== null) {
                    continue;
                }
                $c['got'] .= (string) @fread($c['sock'], 200);
                if (preg_match('#^HTTP/1\.[01] (\d{3}) #', $c['got'], $m)) {
                    [$c['status'], $c['s']] = [(int) $m[1], microtime(true) - $t0];
                    fclose($c['sock']);
                } elseif (microtime(true) >= $next) {
                    @fwrite($c['sock'], ' ');
                }
            }
            unset($c);
            $next = microtime(true) >= $next ? microtime(true) + 1.0 : $next;
            usleep(50000);
        }
        foreach ($slow as $who => $c) {
            $this->assertSame(408, $c['status'], "$who's slow body");
            $this->assertLessThan($limitS + 3, $c['s'], "$who's 408 within ENGINE_BODY_TIMEOUT_S");
        }
        $this->assertHealthyAfter('slow bodies');
    }

    public function testTimingsOfCompileAndCachedExecute(): void
    {
        $f = self::f();
        $c = [];
        $e = [];
        for ($i = 0; $i < 5; $i++) {
            $code = self::HELLO . '/* timing ' . $f->tag . ' ' . $i . ' */';
            $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => $code, 'input' => '']);
            $this->assertSame('accepted', $r['json']['verdict']);
            $c[] = $r['ms'];
            $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => $code, 'input' => '']);
            $this->assertTrue($r['json']['from_cache']);
            $e[] = $r['ms'];
        }
        sort($c);
        sort($e);
        fwrite(STDERR, sprintf("\n[timing] execute with compile (gcc+run) median %.0f ms; execute from binary cache median %.0f ms\n", $c[2], $e[2]));
        $this->assertLessThan(2000, $c[2]);
    }
}
