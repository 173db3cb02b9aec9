<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Evaluation of code against a problem's test cases: compile once, run every case.
 * Who sees what is decided here, in one place: visible cases show input, expected and
 * actual output; hidden cases show only passed or not, and the overall verdict is taken
 * from the visible cases alone (a program chooses how it fails, so a hidden case's own
 * verdict - time, memory, exit code, output - would tell its input bit by bit).
 */
final class Judge
{
    public const HIDDEN_FAILED = 'hidden_failed';
    /** What is kept and shown of a checker's message per case. */
    private const FEEDBACK_BYTES = 4096;

    public function __construct(private readonly Config $c, private readonly bool $background = false)
    {
    }

    /** @return list<array<string, mixed>> visible and hidden cases of a problem, cached per problem version */
    public function testCases(int $problemId, string $updatedAt): array
    {
        $key = 'tc:' . $problemId . ':' . $updatedAt;
        $cases = apcu_fetch($key);
        if (is_array($cases)) {
            return $cases;
        }
        // each case's comparison, its own or else the problem's (rdb/migrations/035): a case
        // with its own checker code brings its own checker's language and convention too
        $cases = Db::run($this->c, 'SELECT t.id, t.position, t.input, t.expected_output, t.visibility, t.weight,
                COALESCE(t.compare_mode, p.compare_mode) AS compare_mode,
                COALESCE(t.abs_tolerance, p.abs_tolerance) AS abs_tolerance,
                COALESCE(t.rel_tolerance, p.rel_tolerance) AS rel_tolerance,
                IF(t.checker_code IS NULL, p.checker_code, t.checker_code) AS checker_code,
                IF(t.checker_code IS NULL, p.checker_env, COALESCE(t.checker_env, p.checker_env)) AS checker_env,
                IF(t.checker_code IS NULL, p.checker_interface, COALESCE(t.checker_interface, p.checker_interface)) AS checker_interface
            FROM test_cases t JOIN problems p ON p.id = t.problem_id
            WHERE t.problem_id = ? ORDER BY t.position, t.id', [$problemId])->fetchAll();
        apcu_store($key, $cases, 300);
        return $cases;
    }

    /**
     * @param array<string, mixed> $p problem row (env, time_limit_ms, memory_limit_kb, max_marks)
     * @param list<array<string, mixed>> $cases as testCases() gives them, each with its comparison
     * @return array<string, mixed> the answer, plus 'rows' (one per case, to store)
     */
    public function judge(array $p, string $code, array $cases, bool $showHidden = false): array
    {
        $env = Environments::get($this->c, (string) ($p['env'] ?: 'c'));
        $limits = Environments::limits($this->c, $env, [
            'CPU_TIME_MS' => (int) $p['time_limit_ms'], 'MEMORY_KB' => (int) $p['memory_limit_kb'],
        ]);
        $runner = new Runner($this->c, $this->background);
        $argv = Environments::runArgv($env, Runner::BINARY);
        // the first case's run comes with the compile (one sandbox launch for both)
        [$cr, $firstRun] = $cases
            ? $runner->compileAndRun($env, $code, (string) $cases[array_key_first($cases)]['input'], $limits, $argv)
            : [$runner->compile($env, $code), null];
        if ($cr['internal']) {
            throw new HttpError(500, 'the sandbox failed to compile: try again');
        }
        $out = [];
        $rows = [];
        $total = 0;
        $got = 0;
        $passedN = 0;
        $visibleVerdict = null;
        $hiddenFailed = false;
        $internal = false;
        $checkerErrors = [];
        $checkers = [];
        $stored = $this->c->storedOutputBytes;
        foreach ($cases as $tc) {
            $w = (int) $tc['weight'];
            $total += $w;
            $hidden = $tc['visibility'] !== 'visible';
            if (!$cr['ok']) {
                $r = ['verdict' => Verdict::COMPILATION_ERROR, 'stdout' => '', 'stderr' => '', 'time_ms' => 0, 'signal_name' => null];
            } else {
                $r = $firstRun ?? $runner->run((string) $cr['binary'], (string) $tc['input'], $limits, $argv);
                $firstRun = null;
                if ($r['verdict'] === Verdict::ACCEPTED) {
                    $r += $this->compare($tc, $r['stdout'], $runner, $checkers, $limits['CPU_TIME_MS']);
                    $r['verdict'] = $r['judged'];
                }
            }
            $credit = $r['verdict'] === Verdict::ACCEPTED ? 1.0 : (float) ($r['credit'] ?? 0.0);
            $passed = $credit >= 1.0;
            $got += $w * $credit;
            if ($r['verdict'] === Verdict::INTERNAL_ERROR) {
                // never the student's failure: the run is not graded as wrong, and staff see why
                $internal = true;
                if ($showHidden) {
                    $checkerErrors[] = ['position' => (int) $tc['position'], 'error' => (string) ($r['error'] ?? $r['stderr'])];
                }
            }
            if ($passed) {
                $passedN++;
            } elseif ($hidden) {
                $hiddenFailed = true;
            } else {
                $visibleVerdict ??= $r['verdict'];
            }
            $feedback = (string) ($r['message'] ?? '');
            $rows[] = ['test_case_id' => (int) $tc['id'], 'verdict' => $r['verdict'], 'passed' => $passed, 'credit' => $credit,
                'feedback' => $feedback === '' ? null : Output::text($feedback, self::FEEDBACK_BYTES),
                'actual' => Output::text($r['stdout'], $stored), 'time_ms' => $r['time_ms']];
            $case = ['position' => (int) $tc['position'], 'visibility' => $tc['visibility'], 'passed' => $passed];
            if (!$hidden || $showHidden) {
                // a checker's message and credit are shown where the case itself is: never for
                // a hidden case (the score sums them all)
                $case += ['verdict' => $r['verdict'], 'credit' => $credit, 'input' => $tc['input'], 'expected' => $tc['expected_output'],
                    'actual' => Output::text($r['stdout']), 'stderr' => Output::text($r['stderr'], 4096),
                    'signal_name' => $r['signal_name'], 'time_ms' => $r['time_ms'],
                    'feedback' => Output::text($feedback, self::FEEDBACK_BYTES)];
            }
            $out[] = $case;
        }
        $runner->release();
        if (!$cr['ok']) {
            $overall = Verdict::COMPILATION_ERROR;
        } elseif ($internal) {
            $overall = Verdict::INTERNAL_ERROR;
        } elseif ($visibleVerdict !== null) {
            $overall = $visibleVerdict;
        } elseif ($hiddenFailed) {
            $overall = self::HIDDEN_FAILED;
        } else {
            $overall = Verdict::ACCEPTED;
        }
        $max = (float) $p['max_marks'];
        return [
            'verdict' => $overall,
            'compiled' => $cr['ok'],
            'compile' => $cr['ok'] ? null : ['messages' => $cr['messages'], 'raw' => $cr['raw']],
            'score' => $total > 0 ? round($max * $got / $total, 2) : 0.0,
            'max_score' => $max,
            'passed' => $passedN,
            'total' => count($cases),
            'cases' => $out,
            'from_cache' => $cr['from_cache'],
            'rows' => $rows,
        ] + ($showHidden ? ['checker_errors' => $checkerErrors] : []);
    }

    /**
     * The verdict on a run that exited cleanly, by the case's comparison; a checker is
     * compiled once per judging (and cached across judgings by the Runner).
     *
     * @param array<string, mixed> $tc
     * @param array<string, array{binary: ?string, env: ?array<string, mixed>, error: ?string}> $checkers
     * @return array{judged: string, credit: float, message?: string, error?: ?string}
     */
    private function compare(array $tc, string $stdout, Runner $runner, array &$checkers, int $cpuMs): array
    {
        $mode = (string) $tc['compare_mode'];
        if ($mode !== 'checker') {
            $tol = static fn (mixed $v): ?float => $v === null ? null : (float) $v;
            $ok = Compare::equal((string) $tc['expected_output'], $stdout, $mode, $tol($tc['abs_tolerance']), $tol($tc['rel_tolerance']));
            return ['judged' => $ok ? Verdict::ACCEPTED : Verdict::WRONG_ANSWER, 'credit' => $ok ? 1.0 : 0.0];
        }
        $checker = new Checker($this->c, $runner);
        $env = (string) ($tc['checker_env'] ?? 'c');
        $code = (string) ($tc['checker_code'] ?? '');
        $key = $env . "\0" . hash('sha256', $code);
        $checkers[$key] ??= $checker->prepare($env, $code);
        $v = $checker->check($checkers[$key], (string) ($tc['checker_interface'] ?? 'kattis'), (string) $tc['input'],
            (string) $tc['expected_output'], $stdout, $cpuMs);
        return ['judged' => $v['verdict'], 'credit' => $v['credit'], 'message' => $v['message'], 'error' => $v['error']];
    }
}
