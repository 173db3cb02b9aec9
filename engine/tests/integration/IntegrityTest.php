<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;

/**
 * Exam integrity, as a student who wants a better mark would attack it (through HAProxy,
 * the real engine and sandbox): reading another request's source or binary, keeping
 * files or shared memory between runs, exhausting the host with processes x memory,
 * holding every slot, probing hidden tests through the verdict, a TA reading hidden
 * cases, output that is not UTF-8, oversized code and input. Each test is the attack;
 * it passes when the attack fails.
 */
final class IntegrityTest extends TestCase
{
    private static ?Fixture $f = null;

    private const SUM_CODE = "#include <stdio.h>\nint main(void){long a,b; if(scanf(\"%ld %ld\",&a,&b)!=2) return 1; printf(\"%ld\\n\",a+b); return 0;}\n";

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

    /** @return array<string, mixed> the answer of /execute, asserted 200 */
    private function runCode(string $code, string $who = 'student', string $input = ''): array
    {
        $f = self::f();
        $aid = $who === 'student' ? $f->ids['practice'] : ($who === 'other' ? $f->ids['others'] : $f->ids['practice_' . $who]);
        $r = $f->call('POST', '/execute', ['assignment_id' => $aid, 'code' => $code . "\n/* " . $f->tag . ' ' . uniqid() . ' */', 'input' => $input], $who);
        $this->assertSame(200, $r['status'], $r['raw']);
        return $r['json'];
    }

    public function testARunSeesOnlyItsOwnBinaryNeverAnotherRequestsSource(): void
    {
        $probe = <<<'C'
#include <dirent.h>
#include <stdio.h>
int main(void) {
    const char *paths[] = {"main.c", "/box/main.c", "../main.c", "/box/prog.c", "/tmp/main.c"};
    for (int i = 0; i < 5; i++) {
        FILE *f = fopen(paths[i], "r");
        if (f) { char b[4096]; size_t n = fread(b, 1, sizeof b - 1, f); b[n] = 0; printf("READ %s: %s\n", paths[i], b); }
    }
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d))) if (e->d_name[0] != '.') printf("FILE %s\n", e->d_name);
    return 0;
}
C;
        // the other student compiles (and runs) their answer several times, in whichever slots,
        // between this student's runs
        for ($i = 0; $i < 4; $i++) {
            $secret = "#include <stdio.h>\nint main(void){ puts(\"SECRET-ANSWER-$i\"); return 0; }";
            $this->assertSame("SECRET-ANSWER-$i\n", $this->runCode($secret, 'other')['stdout']);
            $r = $this->runCode($probe);
            $this->assertSame('accepted', $r['verdict'], $r['stderr']);
            $this->assertStringNotContainsString('SECRET-ANSWER', $r['stdout'], 'another request\'s source is not readable');
            $this->assertStringNotContainsString('READ', $r['stdout']);
            $this->assertSame("FILE prog\n", $r['stdout'], 'the run sees nothing but its binary');
        }
    }

    /**
     * Where the launcher makes its own namespaces (any host; a container uses bubblewrap and
     * two launches), a fresh /execute is one launch: the compile, then the run in a fresh
     * view. The run must still be a run step in everything the student sees: its own limits,
     * figures and output, never the compiler's, and the compiler never reads the run's input.
     */
    public function testAFreshExecuteIsOneLaunchWithTheRunsOwnLimitsFiguresAndOutput(): void
    {
        exec('unshare --mount --pid --fork true 2>/dev/null', $_, $rc);
        if ($rc !== 0) {
            $this->markTestSkipped('root may not make namespaces here: the engine compiles and runs in two launches');
        }
        $f = self::f();
        $echo = "#include <stdio.h>\nint main(void){ int unused; char s[64]; if (scanf(\"%63s\", s) == 1) printf(\"got %s\\n\", s); return 0; }";
        $m0 = $f->metrics();
        $r = $this->runCode($echo, 'student', "word\n");
        $m1 = $f->metrics();
        $this->assertSame(1, ($m1['compile_run'] ?? 0) - ($m0['compile_run'] ?? 0), 'compile and run in one launch');
        $this->assertSame(1, $m1['gcc'] - $m0['gcc'], 'one compile');
        $this->assertFalse($r['from_cache']);
        $this->assertSame('accepted', $r['verdict'], $r['stderr']);
        $this->assertSame("got word\n", $r['stdout'], 'the run reads its input (the compiler did not)');
        $this->assertSame('', $r['stderr'], 'the compiler\'s warning is not the run\'s stderr');
        // gcc's cc1 takes tens of MB and tens of ms of CPU: none of it is the run's
        $this->assertLessThan(8000, $r['memory_kb'], 'the run\'s own memory, not the compiler\'s');
        $this->assertLessThan(30, $r['time_ms'], 'the run\'s own CPU time, not the compiler\'s');

        // the run's memory limit is the problem's (64 MB), not the compile's
        $hog = "#include <stdlib.h>\n#include <string.h>\nint main(void){ for (int i = 0; i < 40; i++) { char *p = malloc(8 << 20); if (!p) return 3; memset(p, 1, 8 << 20); } return 0; }";
        $r = $this->runCode($hog);
        $this->assertSame('memory_limit', $r['verdict'], json_encode($r));
        // and its CPU limit the problem's
        $r = $this->runCode('int main(void){ for (;;); }');
        $this->assertSame('time_limit', $r['verdict'], json_encode($r));
        $this->assertLessThan(3000, $r['time_ms']);

        // the same code again is only run, from the binary cache the launch filled
        $again = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => $echo . "\n/* " . $f->tag . ' again */', 'input' => "x\n"]);
        $this->assertFalse($again['json']['from_cache']);
        $cached = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => $echo . "\n/* " . $f->tag . ' again */', 'input' => "y\n"]);
        $this->assertTrue($cached['json']['from_cache']);
        $this->assertSame("got y\n", $cached['json']['stdout']);
    }

    public function testNothingARunWritesSurvivesIt(): void
    {
        $writer = <<<'C'
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
int main(void) {
    const char *paths[] = {"/tmp/left", "left", "/box/left", "/dev/shm/left", "/var/tmp/left"};
    for (int i = 0; i < 5; i++) { FILE *f = fopen(paths[i], "w"); if (f) { fputs("LEFTOVER", f); fclose(f); printf("wrote %s\n", paths[i]); } }
    int id = shmget(0x5eed, 4096, IPC_CREAT | 0666);
    if (id >= 0) { char *p = shmat(id, 0, 0); if (p != (void *) -1) { strcpy(p, "LEFTOVER"); puts("shm"); } }
    return 0;
}
C;
        $reader = <<<'C'
#include <stdio.h>
#include <sys/ipc.h>
#include <sys/shm.h>
int main(void) {
    const char *paths[] = {"/tmp/left", "left", "/box/left", "/dev/shm/left", "/var/tmp/left"};
    for (int i = 0; i < 5; i++) { FILE *f = fopen(paths[i], "r"); if (f) printf("FOUND %s\n", paths[i]); }
    if (shmget(0x5eed, 0, 0) >= 0) puts("FOUND shm");
    puts("done");
    return 0;
}
C;
        $w = $this->runCode($writer);
        $this->assertStringContainsString('wrote /tmp/left', $w['stdout'], 'a run may use its own /tmp');
        // the next runs, in both slots, of this student and of another
        foreach (['student', 'other', 'student', 'other'] as $who) {
            $r = $this->runCode($reader, $who);
            $this->assertSame("done\n", $r['stdout'], 'files and shared memory of an earlier run are gone');
        }
    }

    public function testProcessesTimesMemoryCannotExhaustTheHost(): void
    {
        // 24 processes of 48 MB each: 1.1 GB if the limit bound each process alone (64 MB here)
        $bomb = <<<'C'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
int main(void) {
    for (int i = 0; i < 24; i++) if (fork() == 0) { char *p = malloc(48 << 20); if (p) memset(p, 1, 48 << 20); sleep(2); _exit(0); }
    while (wait(0) > 0) ;
    return 0;
}
C;
        $r = $this->runCode($bomb);
        $limitKb = 65536;
        $this->assertContains($r['verdict'], ['memory_limit', 'runtime_error', 'accepted', 'time_limit'], json_encode($r));
        $this->assertLessThanOrEqual((int) ($limitKb * 1.1), $r['memory_kb'], 'memory is bound for the whole run, not per process');
        $health = self::f()->call('GET', '/engine/healthz', null, null);
        $this->assertSame(200, $health['status'], 'the engine, MariaDB and memcached stay up');
        $this->assertSame("ok\n", $this->runCode("#include <stdio.h>\nint main(void){puts(\"ok\");return 0;}")['stdout']);
    }

    public function testOneStudentCannotHoldTwoSlots(): void
    {
        $f = self::f();
        $sleep = "#include <unistd.h>\nint main(void){ sleep(3); return 0; }\n/* " . $f->tag . " two tabs */";
        $mh = curl_multi_init();
        $hs = [];
        foreach ([0, 1] as $i) {
            $ch = curl_init($f->url . '/execute');
            curl_setopt_array($ch, [CURLOPT_POST => true, CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 30,
                CURLOPT_POSTFIELDS => json_encode(['assignment_id' => $f->ids['practice'], 'code' => $sleep, 'input' => '']),
                CURLOPT_HTTPHEADER => ['Content-Type: application/json', 'Cookie: ' . $f->sessions['student']['cookie'],
                    'X-CSRF-Token: ' . $f->sessions['student']['csrf']]]);
            curl_multi_add_handle($mh, $ch);
            $hs[] = $ch;
            usleep(300000); // the second tab clicks while the first request runs
        }
        do {
            curl_multi_exec($mh, $running);
            curl_multi_select($mh, 0.05);
        } while ($running > 0);
        $statuses = [];
        foreach ($hs as $ch) {
            $statuses[] = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
            if ((int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE) === 429) {
                $this->assertLessThan(1.5, (float) curl_getinfo($ch, CURLINFO_TOTAL_TIME), 'the second request is refused at once');
                $this->assertStringContainsString('in progress', (string) curl_multi_getcontent($ch));
            }
            curl_multi_remove_handle($mh, $ch);
        }
        sort($statuses);
        $this->assertSame([200, 429], $statuses);
        // the claim is released: the next request goes through
        $this->assertSame("x\n", $this->runCode("#include <stdio.h>\nint main(void){puts(\"x\");return 0;}")['stdout']);
    }

    /**
     * The automatic grader (a background session) cannot starve students: while every slot
     * but one is busy it gets a quick 503 (the grader retries later), and the slot it left
     * serves a student at once; once slots are free it is served.
     */
    public function testBackgroundWorkNeverTakesTheLastFreeSlot(): void
    {
        $f = self::f();
        $slots = (int) (getenv('ENGINE_SLOTS') ?: 2);
        if ($slots < 2 || $slots > Fixture::BURST_USERS) {
            $this->markTestSkipped("needs 2..10 sandbox slots (ENGINE_SLOTS=$slots)");
        }
        // (Fixture::open waited for the stack's own grader: the slots below are this test's alone)
        // sleepers on a problem whose limits let them hold a slot for 8 s (wall = 2 x CPU + 1 s)
        $long = $f->db->prepare("INSERT INTO problems (title, statement_md, env, template_code, solution_code, time_limit_ms, memory_limit_kb, compare_mode)
            VALUES (?, '', 'c', '', '', 4000, 65536, 'trim')");
        $long->execute([$f->tag . ' long']);
        $longProblem = (int) $f->db->lastInsertId();
        $aids = [];
        for ($i = 0; $i < $slots - 1; $i++) {
            $f->db->prepare("INSERT INTO assignments (kind, user_id, problem_id, title) VALUES ('practice', ?, ?, 'long')")->execute([$f->ids['burst' . $i], $longProblem]);
            $aids[$i] = (int) $f->db->lastInsertId();
        }
        try {
            $this->backgroundAgainstSleepers($slots, $aids);
        } finally {
            $f->db->exec('DELETE FROM assignments WHERE id IN (' . implode(',', $aids) . ')');
            $f->db->exec('DELETE FROM problems WHERE id = ' . $longProblem);
        }
    }

    /** @param array<int, int> $aids the sleepers' assignments */
    private function backgroundAgainstSleepers(int $slots, array $aids): void
    {
        $f = self::f();
        $sleep = "#include <unistd.h>\nint main(void){ sleep(8); return 0; }\n/* " . $f->tag . " holds a slot */";
        // compiled once beforehand, so that each sleeper holds its slot at once
        $this->assertSame(200, $f->call('POST', '/compile', ['assignment_id' => $aids[0], 'code' => $sleep], 'burst0')['status']);
        $mh = curl_multi_init();
        $hs = [];
        for ($i = 0; $i < $slots - 1; $i++) {
            $ch = curl_init($f->url . '/execute');
            curl_setopt_array($ch, [CURLOPT_POST => true, CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 30,
                CURLOPT_POSTFIELDS => json_encode(['assignment_id' => $aids[$i], 'code' => $sleep, 'input' => '']),
                CURLOPT_HTTPHEADER => ['Content-Type: application/json', 'Cookie: ' . $f->sessions['burst' . $i]['cookie'],
                    'X-CSRF-Token: ' . $f->sessions['burst' . $i]['csrf']]]);
            curl_multi_add_handle($mh, $ch);
            $hs[] = $ch;
        }
        $until = microtime(true) + 1.0; // the sleepers take their slots
        do {
            curl_multi_exec($mh, $running);
            curl_multi_select($mh, 0.05);
        } while (microtime(true) < $until);
        $evaluate = ['problem_id' => $f->ids['problem'], 'code' => self::SUM_CODE];
        $bg = $f->call('POST', '/evaluate', $evaluate, 'grader');
        $this->assertSame(503, $bg['status'], 'the grader may not take the last free slot: ' . $bg['raw']);
        $this->assertGreaterThanOrEqual(1, (int) ($bg['headers']['retry-after'] ?? 0));
        $wait = ((int) (getenv('ENGINE_QUEUE_WAIT_MS') ?: 3000)) / 1000;
        $this->assertLessThan($wait + 2.0, $bg['ms'] / 1000, 'refused within the slot wait');
        $student = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => self::SUM_CODE, 'input' => "2 3\n"]);
        $this->assertSame(200, $student['status'], 'the slot the grader left serves a student: ' . $student['raw']);
        $this->assertSame("5\n", $student['json']['stdout']);
        $staff = $f->call('POST', '/evaluate', $evaluate, 'staff');
        $this->assertSame(200, $staff['status'], 'an instructor is not background work: ' . $staff['raw']);
        do {
            curl_multi_exec($mh, $running);
            curl_multi_select($mh, 0.1);
        } while ($running > 0);
        foreach ($hs as $ch) {
            $this->assertSame(200, (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE), (string) curl_multi_getcontent($ch));
            curl_multi_remove_handle($mh, $ch);
        }
        $bg = $f->call('POST', '/evaluate', $evaluate, 'grader');
        $this->assertSame(200, $bg['status'], 'with slots free the grader is served: ' . $bg['raw']);
        $this->assertSame('accepted', $bg['json']['verdict']);
    }

    public function testEvaluationsAreRateLimitedPerStudent(): void
    {
        $f = self::f();
        $limit = (int) (getenv('ENGINE_EVALUATE_PER_MINUTE') ?: 12);
        $code = "#include <stdio.h>\nint main(void){long a,b; if(scanf(\"%ld %ld\",&a,&b)!=2) return 1; printf(\"%ld\\n\",a+b); return 0;}\n";
        $refused = null;
        // within any two minute windows at most 2 x limit are allowed, so this many must meet a refusal
        for ($i = 0; $i <= 2 * $limit && $refused === null; $i++) {
            $r = $f->call('POST', '/evaluate', ['assignment_id' => $f->ids['practice_burst9'], 'code' => $code], 'burst9');
            if ($r['status'] === 429) {
                $refused = $r;
            } else {
                $this->assertSame(200, $r['status'], $r['raw']);
            }
        }
        $this->assertNotNull($refused, 'evaluations are limited per minute');
        $this->assertGreaterThanOrEqual(1, (int) $refused['headers']['retry-after']);
        $this->assertStringContainsString('evaluations a minute', $refused['json']['error']);
        // another student is not affected
        $r = $f->call('POST', '/evaluate', ['assignment_id' => $f->ids['practice_burst8'], 'code' => $code], 'burst8');
        $this->assertSame(200, $r['status']);
    }

    /** @return array<string, array{string}> programs that fail only on the hidden input 1000000000 2000000000, each in its own way */
    public static function hiddenProbes(): array
    {
        $on = "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\nint main(void){long a,b; if(scanf(\"%ld %ld\",&a,&b)!=2) return 1;\n if (a == 1000000000) { FAIL }\n printf(\"%ld\\n\",a+b); return 0;}\n";
        $fail = static fn (string $how): array => [str_replace('FAIL', $how, $on)];
        return [
            'exit code' => $fail('return 42;'),
            'time' => $fail('for(;;);'),
            'memory' => $fail('for(;;){ char *p = malloc(1 << 20); if(!p) abort(); p[0] = 1; }'),
            'crash' => $fail('*(volatile int *)0 = 1;'),
            'output' => $fail('puts("wrong"); return 0;'),
            'sleep' => $fail('sleep(30);'),
        ];
    }

    /** @dataProvider hiddenProbes */
    public function testTheVerdictDoesNotTellHowAHiddenCaseFailed(string $code): void
    {
        $f = self::f();
        $who = 'burst' . (crc32($this->dataName()) % 6);
        $r = $f->call('POST', '/evaluate', ['assignment_id' => $f->ids['practice_' . $who], 'code' => $code . '/* ' . $f->tag . ' */'], $who);
        $this->assertSame(200, $r['status'], $r['raw']);
        $this->assertSame('hidden_failed', $r['json']['verdict'], 'one verdict whatever the program did');
        foreach ($r['json']['cases'] as $case) {
            if ($case['visibility'] === 'hidden') {
                $this->assertSame(['position', 'visibility', 'passed'], array_keys($case), 'a hidden case says only whether it passed');
            }
        }
        $this->assertSame(3, $r['json']['passed'], 'the visible cases and the other hidden case passed');
    }

    public function testATaSeesHiddenCasesOnlyAsPassedOrNot(): void
    {
        $f = self::f();
        $sum = "#include <stdio.h>\nint main(void){long a,b; scanf(\"%ld %ld\",&a,&b); printf(\"%ld\\n\",a+b); return 0;}\n";
        $ta = $f->call('POST', '/evaluate', ['problem_id' => $f->ids['problem'], 'code' => $sum], 'ta');
        $this->assertSame(200, $ta['status'], $ta['raw']);
        foreach ($ta['json']['cases'] as $case) {
            if ($case['visibility'] === 'hidden') {
                $this->assertArrayNotHasKey('input', $case);
                $this->assertArrayNotHasKey('expected', $case);
            }
        }
        $this->assertStringNotContainsString('3000000000', $ta['raw'], 'no hidden expected output reaches a TA');
        $instructor = $f->call('POST', '/evaluate', ['problem_id' => $f->ids['problem'], 'code' => $sum], 'staff');
        $this->assertStringContainsString('3000000000', $instructor['raw'], 'the instructor who owns the problem sees it');
    }

    public function testOutputThatIsNotUtf8IsStoredAndShownEscaped(): void
    {
        $f = self::f();
        $r = $this->runCode("#include <stdio.h>\nint main(void){ fputs(\"ok \\xff\\xfe\\x80 caf\\xc3\\xa9\\n\", stdout); fputs(\"\\xc3(\\n\", stderr); return 0; }");
        $this->assertSame('accepted', $r['verdict']);
        $this->assertSame("ok \\xFF\\xFE\\x80 café\n", $r['stdout']);
        $this->assertSame("\\xC3(\n", $r['stderr']);
        $stored = $f->db->query('SELECT stdout FROM executions WHERE assignment_id = ' . (int) $f->ids['practice'] . ' ORDER BY id DESC LIMIT 1')->fetchColumn();
        $this->assertSame("ok \\xFF\\xFE\\x80 café\n", $stored);
    }

    public function testCodeAndInputAreBoundedAsInTheWebapp(): void
    {
        $f = self::f();
        $max = (int) (getenv('MAX_CODE_BYTES') ?: 65536);
        $big = "int main(void){return 0;}\n/*" . str_repeat('x', $max) . '*/';
        $r = $f->call('POST', '/compile', ['assignment_id' => $f->ids['practice'], 'code' => $big]);
        $this->assertSame(413, $r['status']);
        $this->assertStringContainsString('too long', $r['json']['error']);
        $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => 'int main(void){return 0;}', 'input' => str_repeat('1', 65537)]);
        $this->assertSame(413, $r['status']);
        $this->assertSame('0', (string) $f->db->query('SELECT COUNT(*) FROM code WHERE LENGTH(code) > ' . $max)->fetchColumn(), 'nothing oversized was stored');
    }
}
