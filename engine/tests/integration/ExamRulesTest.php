<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\SafeExamBrowser;

/**
 * A student outside an exam's rules reaches nothing of it through the engine (through
 * HAProxy when ENGINE_TEST_URL points at it): Safe Exam Browser's hashes on /compile,
 * /execute, /evaluate of an event requiring it, the question's own language, a practice
 * attempt of a problem that is a question of an event still to come or under way, the
 * Jobe API without a key. Each attack is written as the request a student's script sends.
 */
final class ExamRulesTest extends TestCase
{
    private static ?Fixture $f = null;

    private const SUM = "#include <stdio.h>\nint main(void){long a,b; if(scanf(\"%ld %ld\",&a,&b)!=2) return 1; printf(\"%ld\\n\",a+b); return 0;}\n";
    private const PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n";
    private const CONFIG_KEY = '1111111111111111111111111111111111111111111111111111111111111111';
    private const EXAM_KEY = '2222222222222222222222222222222222222222222222222222222222222222';

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

    private function stored(string $marker): int
    {
        $f = self::f();
        $st = $f->db->prepare('SELECT COUNT(*) FROM code WHERE code LIKE ?');
        $st->execute(['%' . $marker . '%']);
        return (int) $st->fetchColumn();
    }

    /** The header a browser in SEB sends for $path (the URL the client used: the test's base URL). */
    private function sebHeader(string $name, string $path, string $key): string
    {
        return $name . ': ' . SafeExamBrowser::hash(self::f()->url . $path, $key);
    }

    public function testSebIsRequiredOnCompileExecuteEvaluateOfItsEventOnly(): void
    {
        $f = self::f();
        $open = $f->ids['open'];
        $f->db->prepare('INSERT INTO event_seb (event_id, config_keys, browser_exam_keys) VALUES (?, ?, ?)')
            ->execute([$f->ids['event_open'], self::CONFIG_KEY, "\n" . self::EXAM_KEY . "\n"]);
        try {
            $marker = $f->tag . ' no seb';
            $body = ['assignment_id' => $open, 'code' => self::SUM . "/* $marker */", 'input' => "1 2\n"];
            foreach (['/compile', '/execute', '/evaluate'] as $path) {
                $r = $f->call('POST', $path, $body);
                $this->assertSame(403, $r['status'], $path . ' without SEB: ' . $r['raw']);
                $this->assertStringContainsString('Safe Exam Browser', (string) $r['json']['error']);
                // a hash seen on another route, a hash of the right URL with a wrong key,
                // a Browser Exam Key's hash sent as a Config Key's, garbage
                // (on /evaluate the first only: evaluations are limited per minute)
                $other = $path === '/compile' ? '/execute' : '/compile';
                $wrong = [
                    'another URL' => $this->sebHeader('X-SafeExamBrowser-ConfigKeyHash', $other, self::CONFIG_KEY),
                    'a wrong key' => $this->sebHeader('X-SafeExamBrowser-ConfigKeyHash', $path, str_repeat('3', 64)),
                    'keys swapped' => $this->sebHeader('X-SafeExamBrowser-ConfigKeyHash', $path, self::EXAM_KEY),
                    'not a hash' => 'X-SafeExamBrowser-RequestHash: ' . self::EXAM_KEY . 'x',
                ];
                foreach ($path === '/evaluate' ? array_slice($wrong, 0, 1) : $wrong as $what => $header) {
                    $r = $f->call('POST', $path, $body, 'student', true, null, [$header]);
                    $this->assertSame(403, $r['status'], "$path with $what: " . $r['raw']);
                }
                if ($f->url !== $f->engineUrl) {
                    // through HAProxy: a client's own X-Forwarded-Proto is replaced, so a hash of
                    // the https URL (seen elsewhere) does not pass on an http request
                    $https = 'X-SafeExamBrowser-ConfigKeyHash: ' . SafeExamBrowser::hash(preg_replace('/^http:/', 'https:', $f->url) . $path, self::CONFIG_KEY);
                    $r = $f->call('POST', $path, $body, 'student', true, null, [$https, 'X-Forwarded-Proto: https']);
                    $this->assertSame(403, $r['status'], "$path with a forged scheme: " . $r['raw']);
                }
            }
            $this->assertSame(0, $this->stored($marker), 'nothing is stored from outside SEB');
            $marker = $f->tag . ' in seb';
            $body['code'] = self::SUM . "/* $marker */";
            $r = $f->call('POST', '/compile', $body, 'student', true, null, [$this->sebHeader('X-SafeExamBrowser-ConfigKeyHash', '/compile', self::CONFIG_KEY)]);
            $this->assertSame(200, $r['status'], $r['raw']);
            $this->assertTrue($r['json']['compiled']);
            $r = $f->call('POST', '/execute', $body, 'student', true, null, [$this->sebHeader('X-SafeExamBrowser-RequestHash', '/execute', self::EXAM_KEY)]);
            $this->assertSame(200, $r['status'], $r['raw']);
            $this->assertSame("3\n", $r['json']['stdout']);
            $r = $f->call('POST', '/evaluate', $body, 'student', true, null, [$this->sebHeader('X-SafeExamBrowser-ConfigKeyHash', '/evaluate', self::CONFIG_KEY)]);
            $this->assertSame(200, $r['status'], $r['raw']);
            $this->assertSame('accepted', $r['json']['verdict']);
            $this->assertSame(3, $this->stored($marker));
            // the same student's practice is not the exam's
            $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => self::SUM, 'input' => "1 2\n"]);
            $this->assertSame(200, $r['status'], $r['raw']);
        } finally {
            $f->db->prepare('DELETE FROM event_seb WHERE event_id = ?')->execute([$f->ids['event_open']]);
        }
        $r = $f->call('POST', '/execute', ['assignment_id' => $open, 'code' => self::SUM, 'input' => "1 2\n"]);
        $this->assertSame(200, $r['status'], 'SEB off: any browser again: ' . $r['raw']);
    }

    public function testAnExamQuestionRunsInItsOwnLanguageOnly(): void
    {
        $f = self::f();
        $m0 = $f->metrics();
        $marker = $f->tag . ' python on c';
        foreach (['/compile', '/execute', '/evaluate'] as $path) {
            $r = $f->call('POST', $path, ['assignment_id' => $f->ids['open'], 'env' => 'python3', 'code' => self::PY_SUM . "# $marker\n", 'input' => "1 2\n"]);
            $this->assertSame(400, $r['status'], "$path in Python on a C question: " . $r['raw']);
            $this->assertStringContainsString('"c"', (string) $r['json']['error']);
        }
        $m1 = $f->metrics();
        $this->assertSame(0, (int) ($m1['run'] ?? 0) - (int) ($m0['run'] ?? 0), 'nothing ran');
        $this->assertSame(0, $this->stored($marker), 'nothing stored');
        // no language named: the question's own; its own named: the same
        foreach ([[], ['env' => 'c']] as $named) {
            $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['open'], 'code' => self::SUM, 'input' => "20 22\n"] + $named);
            $this->assertSame(200, $r['status'], $r['raw']);
            $this->assertSame("42\n", $r['json']['stdout']);
        }
        // practice keeps the free choice
        $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'env' => 'python3', 'code' => self::PY_SUM, 'input' => "20 22\n"]);
        $this->assertSame(200, $r['status'], $r['raw']);
        $this->assertSame("42\n", $r['json']['stdout']);
    }

    public function testAPracticeProblemThatIsAQuestionOfAnEventNotOverIsClosed(): void
    {
        $f = self::f();
        $pid = $f->ids['problem'];
        $ins = function (string $sql, array $p) use ($f): int {
            $f->db->prepare($sql)->execute($p);
            return (int) $f->db->lastInsertId();
        };
        $ev = $ins("INSERT INTO events (title, type, description) VALUES (?, 'exam', '')", [$f->tag . ' future']);
        try {
            $ins('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, ?, 10)', [$ev, $pid]);
            $practice = ['assignment_id' => $f->ids['practice'], 'code' => self::SUM, 'input' => "1 2\n"];
            $refused = function (string $what) use ($f, $practice): void {
                foreach (['/compile', '/execute', '/evaluate'] as $path) {
                    $r = $f->call('POST', $path, $practice);
                    $this->assertSame(404, $r['status'], "$path, $what: " . $r['raw']);
                    $this->assertStringContainsString('practice problem', (string) $r['json']['error']);
                }
            };
            $refused('a question of an event not scheduled yet');
            $sc = $ins('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) + INTERVAL 1 DAY, UTC_TIMESTAMP(3) + INTERVAL 25 HOUR)', [$ev]);
            $ins('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [$sc, $ev, $f->ids['section']]);
            $refused('a question of tomorrow\'s exam');
            $f->db->prepare('UPDATE schedules SET start_time = UTC_TIMESTAMP(3) - INTERVAL 2 HOUR, stop_time = UTC_TIMESTAMP(3) - INTERVAL 10 MINUTE WHERE id = ?')->execute([$sc]);
            $ins("INSERT INTO assignments (kind, user_id, event_id, problem_id, extra_minutes) VALUES ('event', ?, ?, ?, 60)", [$f->ids['other'], $ev, $pid]);
            $refused('a question of an exam one student still sits (extra time)');
            $f->db->prepare("UPDATE assignments SET extra_minutes = 0 WHERE event_id = ?")->execute([$ev]);
            $r = $f->call('POST', '/execute', $practice);
            $this->assertSame(200, $r['status'], 'the exam is over: practice again: ' . $r['raw']);
            $this->assertSame("3\n", $r['json']['stdout']);
        } finally {
            $f->db->prepare('DELETE FROM assignments WHERE event_id = ?')->execute([$ev]);
            $f->db->prepare('DELETE FROM events WHERE id = ?')->execute([$ev]);
        }
    }

    public function testOtherDoorsStayShut(): void
    {
        $f = self::f();
        // the staff route (a problem id instead of an assignment): staff only
        $r = $f->call('POST', '/evaluate', ['problem_id' => $f->ids['exam_problem'], 'code' => self::SUM]);
        $this->assertSame(403, $r['status'], $r['raw']);
        // both ids: the assignment decides, and a closed one stays closed
        $r = $f->call('POST', '/evaluate', ['assignment_id' => $f->ids['closed'], 'problem_id' => $f->ids['exam_problem'], 'code' => self::SUM]);
        $this->assertSame(404, $r['status'], $r['raw']);
        // another student's exam assignment, open or not
        $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['open'], 'code' => self::SUM, 'input' => "1 2\n"], 'other');
        $this->assertSame(404, $r['status'], $r['raw']);
        // the Jobe API with a student's session and no key (an address not opened)
        $r = $f->call('POST', '/jobe/index.php/restapi/runs', ['run_spec' => ['language_id' => 'c', 'sourcecode' => self::SUM]], 'student', true, null, ['X-Forwarded-For: 10.9.8.7']);
        $this->assertSame(403, $r['status'], $r['raw']);
        // a scratchpad has no problem to evaluate against: a sentence, not a 500
        $f->db->prepare("INSERT INTO assignments (kind, user_id, title) VALUES ('scratch', ?, 't')")->execute([$f->ids['burst0']]);
        $scratch = (int) $f->db->lastInsertId();
        $r = $f->call('POST', '/evaluate', ['assignment_id' => $scratch, 'code' => self::SUM], 'burst0');
        $this->assertSame(404, $r['status'], $r['raw']);
        $this->assertIsString($r['json']['error']);
    }

    public function testALabLockdownHoldsOnTheEnginesRoutesAndAForgedAddressDoesNotPass(): void
    {
        $f = self::f();
        $body = ['assignment_id' => $f->ids['open'], 'code' => self::SUM . "/* {$f->tag} lab */", 'input' => "1 2\n"];
        // until the engine's cache of lock-downs (LabLock, a few seconds) sees the change
        $await = function (int $status, array $extra = []) use ($f, $body): array {
            $t0 = microtime(true);
            do {
                $r = $f->call('POST', '/compile', $body, 'student', true, null, $extra);
                if ($r['status'] === $status) {
                    break;
                }
                usleep(250000);
            } while (microtime(true) - $t0 < 30);
            return $r;
        };
        $f->db->prepare("INSERT INTO lab_lockdowns (event_id, allowed_ranges) VALUES (?, '10.99.0.0/16')")->execute([$f->ids['event_open']]);
        try {
            $r = $await(403);
            $this->assertSame(403, $r['status'], $r['raw']);
            $this->assertStringContainsString('lab', (string) $r['json']['error']);
            foreach (['/execute', '/evaluate'] as $path) {
                $this->assertSame(403, $f->call('POST', $path, $body)['status'], $path);
            }
            $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'code' => self::SUM, 'input' => "1 2\n"]);
            $this->assertSame(403, $r['status'], 'practice is locked too while the lab is: ' . $r['raw']);
            if ($f->url !== $f->engineUrl) {
                // through HAProxy a client's own X-Forwarded-For is dropped
                $r = $f->call('POST', '/compile', $body, 'student', true, null, ['X-Forwarded-For: 10.99.1.1']);
                $this->assertSame(403, $r['status'], 'a forged address: ' . $r['raw']);
            }
        } finally {
            $f->db->prepare('DELETE FROM lab_lockdowns WHERE event_id = ?')->execute([$f->ids['event_open']]);
            $r = $await(200);
        }
        $this->assertSame(200, $r['status'], 'lifted: ' . $r['raw']);
    }
}
