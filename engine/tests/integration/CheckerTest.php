<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;

/**
 * Comparison modes and checker programs end to end, in the real sandbox: both checker
 * conventions (Kattis, testlib) in C and Python, partial credit, checkers that crash, loop,
 * fork or flood, and students who try to forge a checker's verdict or read its files.
 * The problem: print two integers whose sum is the input n (many right answers).
 */
final class CheckerTest extends TestCase
{
    private static ?Fixture $f = null;
    /** @var list<int> */
    private static array $problems = [];

    private const RIGHT = "#include <stdio.h>\nint main(void){ long n; if (scanf(\"%ld\", &n) != 1) return 1; printf(\"%ld 0\\n\", n); return 0; }\n";
    private const RIGHT_OTHER = "#include <stdio.h>\nint main(void){ long n; if (scanf(\"%ld\", &n) != 1) return 1; printf(\"1\\n%ld\\n\", n - 1); return 0; }\n";
    private const OFF_BY_ONE = "#include <stdio.h>\nint main(void){ long n; if (scanf(\"%ld\", &n) != 1) return 1; printf(\"%ld 1\\n\", n); return 0; }\n";
    private const WRONG = "#include <stdio.h>\nint main(void){ puts(\"7 7\"); return 0; }\n";

    /** Kattis convention: 42 right, 43 wrong; off by one earns half (score.txt). */
    private const KATTIS_C = <<<'C'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    char path[4096];
    long n, x, y;
    FILE *in = fopen(argv[1], "r");
    if (!in || fscanf(in, "%ld", &n) != 1) return 1;
    snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
    FILE *msg = fopen(path, "w");
    if (scanf("%ld %ld", &x, &y) != 2) { fprintf(msg, "expected two integers"); return 43; }
    if (x + y == n) { fprintf(msg, "well done: %ld + %ld = %ld", x, y, n); return 42; }
    if (x + y == n + 1 || x + y == n - 1) {
        snprintf(path, sizeof path, "%s/score.txt", argv[3]);
        FILE *s = fopen(path, "w");
        fprintf(s, "0.5\n");
        fclose(s);
        fprintf(msg, "close: %ld + %ld is off by one", x, y);
        return 43;
    }
    fprintf(msg, "%ld + %ld is not %ld", x, y, n);
    return 43;
}
C;

    private const KATTIS_PY = <<<'PY'
import sys, os
n = int(open(sys.argv[1]).read().split()[0])
with open(os.path.join(sys.argv[3], 'judgemessage.txt'), 'w') as msg:
    try:
        x, y = map(int, sys.stdin.read().split())
    except ValueError:
        msg.write('expected two integers')
        sys.exit(43)
    if x + y == n:
        msg.write(f'python says yes: {x} + {y} = {n}')
        sys.exit(42)
    msg.write(f'python says {x} + {y} is not {n}')
sys.exit(43)
PY;

    /** testlib convention: checker input output answer; 0 OK, 1 WA, 7 points (first number of the message). */
    private const TESTLIB_C = <<<'C'
#include <stdio.h>
int main(int argc, char **argv) {
    long n, x, y;
    FILE *in = fopen(argv[1], "r"), *out = fopen(argv[2], "r");
    if (argc < 4 || !in || !out || fscanf(in, "%ld", &n) != 1) return 3;
    if (fscanf(out, "%ld %ld", &x, &y) != 2) { fprintf(stderr, "wrong output format"); return 2; }
    if (x + y == n) { fprintf(stderr, "ok sum is right"); return 0; }
    if (x + y == n + 1) { fprintf(stderr, "points 0.25 nearly"); return 7; }
    fprintf(stderr, "wrong sum %ld", x + y);
    return 1;
}
C;

    public static function setUpBeforeClass(): void
    {
        self::$f = Fixture::open();
    }

    public static function tearDownAfterClass(): void
    {
        foreach (self::$problems as $pid) {
            self::$f?->db->exec('DELETE FROM assignments WHERE problem_id = ' . $pid);
            self::$f?->db->exec('DELETE FROM problems WHERE id = ' . $pid);
        }
        self::$f?->cleanup();
    }

    private static function f(): Fixture
    {
        return self::$f ?? throw new \LogicException('no fixture');
    }

    /**
     * A problem of this test's own, with cases [input, expected, visibility, weight, per-case columns].
     *
     * @param array<string, mixed> $cols problems columns
     * @param list<array{0: string, 1: string, 2: string, 3: int, 4?: array<string, mixed>}> $cases
     */
    private static function problem(array $cols, array $cases): int
    {
        $f = self::f();
        $cols += ['title' => $f->tag . ' checker', 'statement_md' => '', 'env' => 'c', 'template_code' => '', 'solution_code' => '',
            'time_limit_ms' => 500, 'memory_limit_kb' => 65536];
        $f->db->prepare('INSERT INTO problems (' . implode(', ', array_keys($cols)) . ') VALUES (' . implode(', ', array_fill(0, count($cols), '?')) . ')')
            ->execute(array_values($cols));
        $pid = (int) $f->db->lastInsertId();
        self::$problems[] = $pid;
        foreach ($cases as $i => $c) {
            $tc = ['problem_id' => $pid, 'position' => $i + 1, 'input' => $c[0], 'expected_output' => $c[1], 'visibility' => $c[2], 'weight' => $c[3]] + ($c[4] ?? []);
            $f->db->prepare('INSERT INTO test_cases (' . implode(', ', array_keys($tc)) . ') VALUES (' . implode(', ', array_fill(0, count($tc), '?')) . ')')
                ->execute(array_values($tc));
        }
        return $pid;
    }

    /** @return array<string, mixed> the staff evaluation (every case shown) */
    private function staffEval(int $pid, string $code): array
    {
        $r = self::f()->call('POST', '/evaluate', ['problem_id' => $pid, 'code' => $code], 'staff');
        $this->assertSame(200, $r['status'], $r['raw']);
        return $r['json'];
    }

    /** @return array<string, mixed> a student's evaluation of their practice assignment of the problem */
    private function studentEval(int $pid, string $code): array
    {
        $f = self::f();
        $aid = (int) $f->db->query('SELECT id FROM assignments WHERE problem_id = ' . $pid . ' AND user_id = ' . $f->ids['student'])->fetchColumn();
        if ($aid === 0) {
            $f->db->prepare("INSERT INTO assignments (kind, user_id, problem_id, title) VALUES ('practice', ?, ?, 't')")->execute([$f->ids['student'], $pid]);
            $aid = (int) $f->db->lastInsertId();
        }
        $r = $f->call('POST', '/evaluate', ['assignment_id' => $aid, 'code' => $code]);
        $this->assertSame(200, $r['status'], $r['raw']);
        return $r['json'] + ['assignment_id' => $aid];
    }

    private static function sumCases(array $extra = []): array
    {
        return [["10\n", "10 0\n", 'visible', 1, $extra], ["5\n", "5 0\n", 'visible', 1, $extra], ["100\n", "100 0\n", 'hidden', 2, $extra]];
    }

    public function testTolerancesAndModesPerProblemAndPerCase(): void
    {
        // the problem compares numbers within 0.01; its second case overrides: exact text
        $pid = self::problem(['compare_mode' => 'numbers', 'abs_tolerance' => 0.01], [
            ["\n", "3.14159\n", 'visible', 1],
            ["\n", "3.14159\n", 'visible', 1, ['compare_mode' => 'exact']],
            ["\n", "3.14159\n", 'hidden', 1, ['abs_tolerance' => 0.0, 'rel_tolerance' => 0.1]],
        ]);
        $r = $this->staffEval($pid, "#include <stdio.h>\nint main(void){ printf(\"%.3f\\n\", 3.14159); return 0; }\n");
        $this->assertSame([true, false, true], array_column($r['cases'], 'passed'));
        $this->assertSame('wrong_answer', $r['cases'][1]['verdict']);
        $this->assertEqualsWithDelta(66.67, $r['score'], 0.01);
    }

    public function testKattisCheckerInCAcceptsEveryRightAnswerAndGivesPartialCredit(): void
    {
        $pid = self::problem(['compare_mode' => 'checker', 'checker_env' => 'c', 'checker_interface' => 'kattis', 'checker_code' => self::KATTIS_C], self::sumCases());
        foreach ([self::RIGHT, self::RIGHT_OTHER] as $code) {
            $r = $this->staffEval($pid, $code);
            $this->assertSame('accepted', $r['verdict'], json_encode($r));
            $this->assertEquals(100, $r['score']);
            $this->assertStringStartsWith('well done', $r['cases'][0]['feedback']);
        }
        // off by one everywhere: half of each case's weight
        $r = $this->staffEval($pid, self::OFF_BY_ONE);
        $this->assertSame('partial', $r['cases'][0]['verdict']);
        $this->assertSame([0.5, 0.5, 0.5], array_map('floatval', array_column($r['cases'], 'credit')));
        $this->assertEquals(50, $r['score']);
        $this->assertSame('close: 10 + 1 is off by one', $r['cases'][0]['feedback']);
        $r = $this->staffEval($pid, self::WRONG);
        $this->assertSame('wrong_answer', $r['verdict']);
        $this->assertEquals(0, $r['score']);
        $this->assertSame('7 + 7 is not 10', $r['cases'][0]['feedback']);
    }

    public function testTheStudentSeesTheCheckersMessageOnVisibleCasesOnlyAndCreditIsStored(): void
    {
        $pid = self::problem(['compare_mode' => 'checker', 'checker_env' => 'c', 'checker_code' => self::KATTIS_C], self::sumCases());
        $r = $this->studentEval($pid, self::OFF_BY_ONE);
        $this->assertSame('close: 10 + 1 is off by one', $r['cases'][0]['feedback']);
        $this->assertArrayNotHasKey('feedback', $r['cases'][2], 'a hidden case says nothing of its checker');
        $this->assertArrayNotHasKey('checker_errors', $r);
        $this->assertEquals(50, $r['score']);
        $rows = self::f()->db->query('SELECT credit, feedback FROM evaluations WHERE run_id = ' . self::f()->db->quote($r['run_id']) . ' ORDER BY test_case_id')->fetchAll();
        $this->assertSame(['0.5000', '0.5000', '0.5000'], array_column($rows, 'credit'));
        $this->assertSame('close: 100 + 1 is off by one', $rows[2]['feedback'], 'kept for staff');
    }

    public function testKattisCheckerInPython(): void
    {
        $pid = self::problem(['compare_mode' => 'checker', 'checker_env' => 'python3', 'checker_code' => self::KATTIS_PY], self::sumCases());
        $r = $this->staffEval($pid, self::RIGHT_OTHER);
        $this->assertSame('accepted', $r['verdict'], json_encode($r));
        $this->assertSame('python says yes: 1 + 9 = 10', $r['cases'][0]['feedback']);
        $r = $this->staffEval($pid, self::WRONG);
        $this->assertSame('wrong_answer', $r['verdict']);
        $this->assertSame('python says 7 + 7 is not 5', $r['cases'][1]['feedback']);
    }

    public function testTestlibConventionWithPoints(): void
    {
        $pid = self::problem(['compare_mode' => 'checker', 'checker_env' => 'c', 'checker_interface' => 'testlib', 'checker_code' => self::TESTLIB_C], self::sumCases());
        $r = $this->staffEval($pid, self::RIGHT);
        $this->assertSame('accepted', $r['verdict'], json_encode($r));
        $this->assertSame('ok sum is right', $r['cases'][0]['feedback']);
        $r = $this->staffEval($pid, self::OFF_BY_ONE);
        $this->assertSame(['partial', 'partial', 'partial'], array_column($r['cases'], 'verdict'));
        $this->assertEquals(25, $r['score']);
        $r = $this->staffEval($pid, "#include <stdio.h>\nint main(void){ puts(\"hello\"); return 0; }\n");
        $this->assertSame('wrong_answer', $r['verdict']);
        $this->assertSame('wrong output format', $r['cases'][0]['feedback']);
    }

    /** A case with a checker of its own; the others compare as the problem says. */
    public function testACaseMayHaveItsOwnChecker(): void
    {
        $pid = self::problem(['compare_mode' => 'tokens'], [
            ["10\n", "10 0\n", 'visible', 1],
            ["10\n", "10 0\n", 'visible', 1, ['compare_mode' => 'checker', 'checker_env' => 'c', 'checker_code' => self::KATTIS_C]],
        ]);
        $r = $this->staffEval($pid, self::RIGHT_OTHER);
        $this->assertSame([false, true], array_column($r['cases'], 'passed'));
    }

    /** @return array<string, array{string, string}> checker, the pattern of what staff are told */
    public static function brokenCheckers(): array
    {
        $head = "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n#include <string.h>\nint main(int argc, char **argv) {\n";
        return [
            'exits 0 (not a Kattis code)' => [$head . "return 0; }\n", '/exited with 0 /'],
            'crashes' => [$head . "volatile int *p = 0; return *p; }\n", '/SIGSEGV/'],
            'infinite loop' => [$head . "volatile unsigned long i = 0; for (;;) i++; }\n", '/SIGXCPU|time_limit/'],
            'fork bomb' => [$head . "for (;;) fork(); }\n", '/SIGXCPU|time_limit/'],
            'floods stderr' => [$head . "static char b[1 << 16]; memset(b, 'x', sizeof b); for (int i = 0; i < 4096; i++) fwrite(b, 1, sizeof b, stderr); return 42; }\n", '/SIGXFSZ|output_limit/'],
            'floods stdout' => [$head . "static char b[1 << 16]; memset(b, 'x', sizeof b); for (int i = 0; i < 2048; i++) fwrite(b, 1, sizeof b, stdout); return 43; }\n", ''],
            'does not compile' => ["int main(void) { return nope; }\n", '/does not compile/'],
            'writes a bad score' => [$head . "char p[4096]; snprintf(p, sizeof p, \"%s/score.txt\", argv[3]); FILE *f = fopen(p, \"w\"); fputs(\"lots\", f); fclose(f); return 42; }\n", '/not a number/'],
        ];
    }

    /** @dataProvider brokenCheckers */
    public function testABrokenOrHostileCheckerIsAnInternalErrorNeverTheStudentsFault(string $checker, string $why): void
    {
        $f = self::f();
        $pid = self::problem(['compare_mode' => 'checker', 'checker_env' => 'c', 'checker_code' => $checker . '/* ' . $f->tag . ' ' . $this->dataName() . ' */'],
            [["10\n", "10 0\n", 'visible', 1]]);
        $t = microtime(true);
        $r = $this->staffEval($pid, self::RIGHT);
        $ms = (microtime(true) - $t) * 1000;
        if ($this->dataName() === 'floods stdout') {
            // its stdout is thrown away: a checker may write there, and its verdict stands
            $this->assertSame('wrong_answer', $r['verdict']);
            return;
        }
        $this->assertSame('internal_error', $r['verdict'], json_encode($r));
        $this->assertSame('internal_error', $r['cases'][0]['verdict']);
        $this->assertEquals(0, $r['score']);
        $this->assertCount(1, $r['checker_errors']);
        $this->assertMatchesRegularExpression($why, $r['checker_errors'][0]['error']);
        $this->assertLessThan(30000, $ms, 'the request came back');
        // the student sees an internal error, never a wrong answer, and nothing of the checker
        $s = $this->studentEval($pid, self::RIGHT);
        $this->assertSame('internal_error', $s['verdict']);
        $this->assertArrayNotHasKey('checker_errors', $s);
        $this->assertSame('', $s['cases'][0]['feedback']);
        // and the engine is fine afterwards
        $ok = self::problem(['compare_mode' => 'tokens'], [["1\n", "1 0\n", 'visible', 1]]);
        $this->assertSame('accepted', $this->staffEval($ok, self::RIGHT)['verdict']);
    }

    /** @return array<string, array{string}> */
    public static function forgers(): array
    {
        $head = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <sys/stat.h>\nint main(void) {\n";
        return [
            // an exit code of 42 is the student's own, never the checker's
            'exits 42' => [$head . "puts(\"7 7\"); fflush(stdout); _Exit(42); }\n"],
            'prints the frame of a verdict' => [$head . "printf(\"rc 42\\njudgemessage.txt 2\\nOKscore.txt 1\\n1.stderr 0\\n\"); return 0; }\n"],
            'writes the feedback dir' => [$head . "const char *d[] = {\"fb\", \"/box/fb\", \"/tmp/fb\"}; for (int i = 0; i < 3; i++) { char p[64]; mkdir(d[i], 0777); snprintf(p, sizeof p, \"%s/score.txt\", d[i]); FILE *f = fopen(p, \"w\"); if (f) { fputs(\"1\\n\", f); fclose(f); } snprintf(p, sizeof p, \"%s/judgemessage.txt\", d[i]); f = fopen(p, \"w\"); if (f) { fputs(\"forged\", f); fclose(f); } } puts(\"7 7\"); return 0; }\n"],
            'reads the answer' => [$head . "const char *p[] = {\"answer\", \"/box/answer\", \"input\", \"../answer\", \"/box/fb/judgemessage.txt\"}; for (int i = 0; i < 5; i++) { FILE *f = fopen(p[i], \"r\"); char b[64] = {0}; if (f && fgets(b, sizeof b, f)) { fputs(b, stdout); return 0; } } puts(\"7 7\"); return 0; }\n"],
        ];
    }

    /** @dataProvider forgers */
    public function testAStudentCannotForgeTheCheckersVerdict(string $code): void
    {
        static $pid = null;
        $pid ??= self::problem(['compare_mode' => 'checker', 'checker_env' => 'c', 'checker_code' => self::KATTIS_C], self::sumCases());
        $r = $this->studentEval($pid, $code . '/* ' . self::f()->tag . ' ' . $this->dataName() . " */\n");
        $this->assertNotSame('accepted', $r['verdict']);
        $this->assertEquals(0, $r['score'], json_encode($r));
        foreach ($r['cases'] as $c) {
            $this->assertFalse($c['passed']);
            $this->assertStringNotContainsString('forged', (string) ($c['feedback'] ?? ''));
        }
    }
}
