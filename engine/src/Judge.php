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
        $cases = Db::run($this->c, 'SELECT id, position, input, expected_output, visibility, weight
            FROM test_cases WHERE problem_id = ? ORDER BY position, id', [$problemId])->fetchAll();
        apcu_store($key, $cases, 300);
        return $cases;
    }

    /**
     * @param array<string, mixed> $p problem row (env, time_limit_ms, memory_limit_kb, compare_mode, max_marks)
     * @param list<array<string, mixed>> $cases
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
        $files = ProblemFiles::of($this->c, $p);
        // the first case's run comes with the compile (one sandbox launch for both)
        [$cr, $firstRun] = $cases
            ? $runner->compileAndRun($env, $code, (string) $cases[array_key_first($cases)]['input'], $limits, $argv, null, $files)
            : [$runner->compile($env, $code, $files), null];
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
        $stored = $this->c->storedOutputBytes;
        foreach ($cases as $tc) {
            $w = (int) $tc['weight'];
            $total += $w;
            $hidden = $tc['visibility'] !== 'visible';
            if (!$cr['ok']) {
                $r = ['verdict' => Verdict::COMPILATION_ERROR, 'stdout' => '', 'stderr' => '', 'time_ms' => 0, 'signal_name' => null];
            } else {
                $r = $firstRun ?? $runner->run((string) $cr['binary'], (string) $tc['input'], $limits, $argv, Runner::runFiles($env, $files));
                $firstRun = null;
                if ($r['verdict'] === Verdict::ACCEPTED && !Compare::equal((string) $tc['expected_output'], $r['stdout'], (string) $p['compare_mode'])) {
                    $r['verdict'] = Verdict::WRONG_ANSWER;
                }
            }
            $passed = $r['verdict'] === Verdict::ACCEPTED;
            if ($passed) {
                $got += $w;
                $passedN++;
            } elseif ($hidden) {
                $hiddenFailed = true;
            } else {
                $visibleVerdict ??= $r['verdict'];
            }
            $rows[] = ['test_case_id' => (int) $tc['id'], 'verdict' => $r['verdict'], 'passed' => $passed,
                'actual' => Output::text($r['stdout'], $stored), 'time_ms' => $r['time_ms']];
            $case = ['position' => (int) $tc['position'], 'visibility' => $tc['visibility'], 'passed' => $passed];
            if (!$hidden || $showHidden) {
                $case += ['verdict' => $r['verdict'], 'input' => $tc['input'], 'expected' => $tc['expected_output'],
                    'actual' => Output::text($r['stdout']), 'stderr' => Output::text($r['stderr'], 4096),
                    'signal_name' => $r['signal_name'], 'time_ms' => $r['time_ms']];
            }
            $out[] = $case;
        }
        $runner->release();
        if (!$cr['ok']) {
            $overall = Verdict::COMPILATION_ERROR;
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
        ];
    }
}
