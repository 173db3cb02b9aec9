<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * The student's routes: POST /compile, /execute, /evaluate on their own assignment
 * while its window is open. Each stores the code it works on (authorised and written in
 * one statement), and stores what it produced, bounded.
 */
final class StudentApi
{
    private const WINDOW_JOIN = "JOIN users u ON u.id = a.user_id AND u.active = 1
        LEFT JOIN slots sl ON sl.event_id = a.event_id AND sl.section_id = u.section_id
        LEFT JOIN schedules s ON s.id = sl.schedule_id";
    private const WINDOW_OPEN = "(a.kind <> 'event' OR (UTC_TIMESTAMP(3) >= s.start_time
        AND UTC_TIMESTAMP(3) < s.stop_time + INTERVAL a.extra_minutes MINUTE))";

    public function __construct(private readonly Config $c, private readonly Session $s, private readonly Input $in)
    {
    }

    /** Authorise and store the code in one statement; returns the new code id. */
    private function storeCode(int $aid, string $trigger, string $code): int
    {
        $st = Db::run($this->c, 'INSERT INTO code (assignment_id, save_trigger, code)
            SELECT a.id, ?, ? FROM assignments a ' . self::WINDOW_JOIN . '
             WHERE a.id = ? AND a.user_id = ? AND ' . self::WINDOW_OPEN . ' LIMIT 1', [$trigger, $code, $aid, $this->s->userId()]);
        if ($st->rowCount() !== 1) {
            throw new HttpError(404, 'no such assignment of yours, or its event is not open now');
        }
        return Db::lastId($this->c);
    }

    private function code(): string
    {
        return $this->in->str('code', $this->c->maxCodeBytes);
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    public function compile(): array
    {
        $aid = $this->in->int('assignment_id');
        $code = $this->code();
        $lang = $this->in->str('env', 32, 'c');
        $env = Environments::get($this->c, $lang);
        $codeId = $this->storeCode($aid, 'compile', $code);
        $runner = new Runner($this->c);
        $r = $runner->compile($env, $code);
        $runner->release();
        $uid = $this->s->userId();
        if ($r['internal']) {
            Telemetry::log($this->c, 'compile', ['user_id' => $uid, 'assignment_id' => $aid, 'ok' => false, 'ms' => $r['ms'], 'internal' => true]);
            throw new HttpError(500, 'the sandbox failed to compile: try again');
        }
        Db::run($this->c, 'INSERT INTO compilations (code_id, assignment_id, success, messages, from_cache) VALUES (?, ?, ?, ?, ?)',
            [$codeId, $aid, (int) $r['ok'], Output::text($r['raw'], $this->c->storedOutputBytes), (int) $r['from_cache']]);
        Metrics::inc('compile');
        Metrics::compileSeconds($lang, (bool) $r['from_cache'], $r['ms'] / 1000);
        Metrics::run('compile', $lang, $r['ok'] ? 'OK' : Verdict::COMPILATION_ERROR);
        Telemetry::log($this->c, 'compile', ['user_id' => $uid, 'assignment_id' => $aid, 'ok' => $r['ok'], 'ms' => $r['ms'], 'from_cache' => $r['from_cache']]);
        return [200, [
            'compiled' => $r['ok'],
            'verdict' => $r['ok'] ? null : Verdict::COMPILATION_ERROR,
            'messages' => CompileHelp::annotate($this->c, $r['messages'], $code),
            'raw' => Output::text($r['raw']),
            'code_id' => $codeId,
            'from_cache' => $r['from_cache'],
            'ms' => $r['ms'],
        ], []];
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    public function execute(): array
    {
        $t0 = hrtime(true);
        $aid = $this->in->int('assignment_id');
        $code = $this->code();
        $input = $this->in->str('input', $this->c->maxInputBytes, '');
        $lang = $this->in->str('env', 32, 'c');
        $env = Environments::get($this->c, $lang);
        // the window is checked before anything runs, and again by the INSERT that stores
        // the code (atomically), which is done while the sandbox compiles
        $p = Db::run($this->c, 'SELECT p.time_limit_ms, p.memory_limit_kb FROM assignments a ' . self::WINDOW_JOIN . '
            LEFT JOIN problems p ON p.id = a.problem_id
            WHERE a.id = ? AND a.user_id = ? AND ' . self::WINDOW_OPEN . ' LIMIT 1', [$aid, $this->s->userId()])->fetch();
        if (!$p) {
            throw new HttpError(404, 'no such assignment of yours, or its event is not open now');
        }
        $limits = Environments::limits($this->c, $env, [
            'CPU_TIME_MS' => (int) ($p['time_limit_ms'] ?? 0), 'MEMORY_KB' => (int) ($p['memory_limit_kb'] ?? 0),
        ]);
        $codeId = 0;
        $store = new Meanwhile(function () use (&$codeId, $aid, $code): void {
            $codeId = $this->storeCode($aid, 'execute', $code);
        });
        $runner = new Runner($this->c);
        try {
            [$cr, $res] = $runner->compileAndRun($env, $code, $input, $limits, Environments::runArgv($env, Runner::BINARY), $store);
        } finally {
            $store(); // when no launch did it (a compile that failed, a busy engine): the code is stored all the same
        }
        if ($cr['internal']) {
            throw new HttpError(500, 'the sandbox failed to compile: try again');
        }
        $res ??= ['verdict' => Verdict::COMPILATION_ERROR, 'stdout' => '', 'stderr' => '', 'exit_code' => null,
            'signal' => null, 'signal_name' => null, 'time_ms' => 0, 'memory_kb' => 0];
        $runner->release();
        $bound = $this->c->storedOutputBytes;
        Db::run($this->c, 'INSERT INTO executions (code_id, assignment_id, input, stdout, stderr, exit_code, signal_no, time_ms, memory_kb, verdict)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [$codeId, $aid, Output::text($input, $bound), Output::text($res['stdout'], $bound),
            Output::text($res['stderr'], $bound), $res['exit_code'], $res['signal'], $res['time_ms'], $res['memory_kb'], $res['verdict']]);
        Metrics::inc('execute');
        // a fresh compile and its run are often one launch, timed together: the run's own wall
        // time is taken off, so a long run does not show as a slow compile
        $runMs = (int) ($res['wall_ms'] ?? 0);
        Metrics::compileSeconds($lang, (bool) $cr['from_cache'], max(0, $cr['ms'] - $runMs) / 1000);
        if (isset($res['wall_ms'])) {
            Metrics::runSeconds($lang, $runMs / 1000);
        }
        Metrics::run('execute', $lang, $res['verdict']);
        $ms = (int) ((hrtime(true) - $t0) / 1_000_000);
        Telemetry::log($this->c, 'execute', ['user_id' => $this->s->userId(), 'assignment_id' => $aid,
            'ok' => $res['verdict'] === Verdict::ACCEPTED, 'verdict' => $res['verdict'], 'ms' => $ms]);
        return [200, [
            'verdict' => $res['verdict'],
            'compiled' => $cr['ok'],
            'compile' => $cr['ok'] ? null : ['messages' => $cr['messages'], 'raw' => Output::text($cr['raw'])],
            'stdout' => Output::text($res['stdout']),
            'stderr' => Output::text($res['stderr']),
            'exit_code' => $res['exit_code'],
            'signal' => $res['signal'],
            'signal_name' => $res['signal_name'],
            'time_ms' => $res['time_ms'],
            'memory_kb' => $res['memory_kb'],
            'code_id' => $codeId,
            'from_cache' => $cr['from_cache'],
            'ms' => $ms,
        ], []];
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    public function evaluate(FairShare $share): array
    {
        $t0 = hrtime(true);
        $aid = $this->in->int('assignment_id');
        $uid = $this->s->userId();
        $share->countEvaluation($uid);
        if ($this->in->has('code')) {
            $this->storeCode($aid, 'evaluate', $this->code());
        }
        $row = Db::run($this->c, 'SELECT a.problem_id, COALESCE(q.max_marks, 100) AS max_marks, p.env, p.time_limit_ms,
                p.memory_limit_kb, p.compare_mode, p.updated_at, c.id AS code_id, c.code
              FROM assignments a ' . self::WINDOW_JOIN . '
              JOIN problems p ON p.id = a.problem_id
              LEFT JOIN event_questions q ON q.id = a.question_id
              LEFT JOIN code c ON c.id = (SELECT c2.id FROM code c2 WHERE c2.assignment_id = a.id
                                           ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1)
             WHERE a.id = ? AND a.user_id = ? AND ' . self::WINDOW_OPEN . ' LIMIT 1', [$aid, $uid])->fetch();
        if (!$row) {
            throw new HttpError(404, 'no such assignment of yours with a problem, or its event is not open now');
        }
        if ($row['code_id'] === null) {
            throw new HttpError(409, 'save your code before evaluating it');
        }
        $judge = new Judge($this->c);
        $cases = $judge->testCases((int) $row['problem_id'], (string) $row['updated_at']);
        $res = $judge->judge($row, (string) $row['code'], $cases);
        $runId = Api::ulid();
        if ($cases) {
            $sql = 'INSERT INTO evaluations (run_id, code_id, assignment_id, test_case_id, verdict, passed, credit, feedback, actual_output, time_ms) VALUES '
                . implode(',', array_fill(0, count($cases), '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'));
            $params = [];
            foreach ($res['rows'] as $r) {
                array_push($params, $runId, (int) $row['code_id'], $aid, $r['test_case_id'], $r['verdict'], (int) $r['passed'],
                    round($r['credit'], 4), $r['feedback'], $r['actual'], $r['time_ms']);
            }
            Db::run($this->c, $sql, $params);
        }
        Db::run($this->c, 'UPDATE assignments SET score = ? WHERE id = ? AND user_id = ?', [$res['score'], $aid, $uid]);
        Metrics::inc('evaluate');
        Metrics::run('evaluate', (string) $row['env'], $res['verdict']);
        $ms = (int) ((hrtime(true) - $t0) / 1_000_000);
        Telemetry::log($this->c, 'evaluate', ['user_id' => $uid, 'assignment_id' => $aid, 'ok' => $res['verdict'] === Verdict::ACCEPTED,
            'verdict' => $res['verdict'], 'score' => $res['score'], 'ms' => $ms]);
        unset($res['rows']);
        return [200, $res + ['run_id' => $runId, 'code_id' => (int) $row['code_id'], 'ms' => $ms], []];
    }
}
