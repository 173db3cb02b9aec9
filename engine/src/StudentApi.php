<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * The student's routes: POST /compile, /execute, /evaluate on their own assignment
 * while its rules allow it: an event's within its window, in Safe Exam Browser when the
 * event requires it, in the question's language; a practice problem's while no event
 * using it as a question is still to come or under way. One query authorises the
 * request (assignment()); each route stores the code it works on (authorised again and
 * written in one statement), and stores what it produced, bounded.
 */
final class StudentApi
{
    // the window rule is the view's (assignment_window: schedule, extra time,
    // accommodations and pauses); a paused student runs nothing until staff resume
    private const WINDOW_JOIN = "JOIN users u ON u.id = a.user_id AND u.active = 1
        LEFT JOIN assignment_window w ON w.assignment_id = a.id";
    /**
     * A practice attempt of a problem that is also a question of an event not over would
     * run that question's hidden tests before or during it: the view problems_held_for_exams
     * says which (the rule the webapp's practice pages use too).
     */
    private const QUESTION_OF_OPEN_EVENT = "SELECT 1 FROM problems_held_for_exams h WHERE h.problem_id = a.problem_id";
    private const WINDOW_OPEN = "(a.kind = 'scratch'
        OR (a.kind = 'event' AND UTC_TIMESTAMP(3) >= w.start_time AND UTC_TIMESTAMP(3) < w.deadline AND w.paused_since IS NULL)
        OR (a.kind = 'practice' AND NOT EXISTS (" . self::QUESTION_OF_OPEN_EVENT . ")))";
    private const NOT_OPEN = 'no such assignment of yours, or its event is not open now (a practice problem that is a question of an event still to come or under way opens after it)';

    /** @param array<string, mixed> $server the request's (SEB's headers and URL) */
    public function __construct(private readonly Config $c, private readonly Session $s, private readonly Input $in, private readonly array $server = [])
    {
    }

    /** Why a run of an assignment was refused: its event is paused for the student, or not open. */
    private function refused(int $aid, string $notOpen): HttpError
    {
        $paused = Db::run($this->c, 'SELECT w.paused_since FROM assignment_window w
            WHERE w.assignment_id = ? AND w.user_id = ? AND w.paused_since IS NOT NULL', [$aid, $this->s->userId()])->fetchColumn();
        if ($paused !== false) {
            return new HttpError(409, 'your exam is paused by the invigilator: nothing runs until it resumes; '
                . 'your code is kept and the pause is added to your time');
        }
        return new HttpError(404, $notOpen);
    }

    /**
     * The assignment, if the student may work on it now, with its problem, its event's SEB
     * keys (checked here) and, with $latestCode, its latest stored code; else 404 / 403.
     *
     * @return array<string, mixed>
     */
    private function assignment(int $aid, bool $latestCode = false): array
    {
        $row = Db::run($this->c, 'SELECT a.kind, a.problem_id, p.env, p.time_limit_ms, p.memory_limit_kb, p.compare_mode, p.updated_at,
                ' . ProblemFiles::COUNT_SQL . ', COALESCE(q.max_marks, 100) AS max_marks,
                seb.config_keys AS seb_config_keys, seb.browser_exam_keys AS seb_browser_exam_keys'
                . ($latestCode ? ', c.id AS code_id, c.code' : '') . '
              FROM assignments a ' . self::WINDOW_JOIN . '
              LEFT JOIN problems p ON p.id = a.problem_id
              LEFT JOIN event_questions q ON q.id = a.question_id
              LEFT JOIN event_seb seb ON seb.event_id = a.event_id'
              . ($latestCode ? '
              LEFT JOIN code c ON c.id = (SELECT c2.id FROM code c2 WHERE c2.assignment_id = a.id
                                           ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1)' : '') . '
             WHERE a.id = ? AND a.user_id = ? AND ' . self::WINDOW_OPEN . ' LIMIT 1', [$aid, $this->s->userId()])->fetch();
        if (!$row) {
            throw $this->refused($aid, self::NOT_OPEN);
        }
        SafeExamBrowser::check($this->c, $this->s, $this->server, $row['seb_config_keys'], $row['seb_browser_exam_keys']);
        return $row;
    }

    /**
     * The language: an event's question is answered in the problem's own (its limits are
     * the question's; another language is refused, not quietly replaced); practice and
     * the scratchpad take the one asked for, the problem's by default.
     *
     * @param array<string, mixed> $row
     * @return array{0: string, 1: array<string, mixed>}
     */
    private function language(array $row): array
    {
        $asked = $this->in->str('env', 32, '');
        $own = $row['env'] === null ? null : (string) $row['env'];
        if ($row['kind'] === 'event' && $own !== null) {
            if ($asked !== '' && $asked !== $own) {
                throw new HttpError(400, 'this exam question is answered in its own language ("' . $own
                    . '"), not "' . substr($asked, 0, 32) . '": reload the exam page');
            }
            $asked = $own;
        }
        $lang = $asked !== '' ? $asked : ($own ?? 'c');
        return [$lang, Environments::get($this->c, $lang)];
    }

    /** Authorise and store the code in one statement; returns the new code id. */
    private function storeCode(int $aid, string $trigger, string $code): int
    {
        $st = Db::run($this->c, 'INSERT INTO code (assignment_id, save_trigger, code)
            SELECT a.id, ?, ? FROM assignments a ' . self::WINDOW_JOIN . '
             WHERE a.id = ? AND a.user_id = ? AND ' . self::WINDOW_OPEN . ' LIMIT 1', [$trigger, $code, $aid, $this->s->userId()]);
        if ($st->rowCount() !== 1) {
            throw $this->refused($aid, self::NOT_OPEN);
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
        $p = $this->assignment($aid);
        [$lang, $env] = $this->language($p);
        $codeId = $this->storeCode($aid, 'compile', $code);
        // the problem's support files compile with the code (a header, the instructor's main)
        $runner = new Runner($this->c);
        $r = $runner->compile($env, $code, ProblemFiles::of($this->c, $p));
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
        // the window is checked before anything runs, and again by the INSERT that stores
        // the code (atomically), which is done while the sandbox compiles
        $p = $this->assignment($aid);
        [$lang, $env] = $this->language($p);
        $limits = Environments::limits($this->c, $env, [
            'CPU_TIME_MS' => (int) ($p['time_limit_ms'] ?? 0), 'MEMORY_KB' => (int) ($p['memory_limit_kb'] ?? 0),
        ]);
        $codeId = 0;
        $store = new Meanwhile(function () use (&$codeId, $aid, $code): void {
            $codeId = $this->storeCode($aid, 'execute', $code);
        });
        $runner = new Runner($this->c);
        try {
            [$cr, $res] = $runner->compileAndRun($env, $code, $input, $limits, Environments::runArgv($env, Runner::BINARY), $store,
                ProblemFiles::of($this->c, $p));
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
        $row = $this->assignment($aid, true);
        if ($row['problem_id'] === null) {
            throw new HttpError(404, 'this assignment has no problem to evaluate against');
        }
        $this->language($row); // tests run in the problem's language; an exam's refuses another
        if ($this->in->has('code')) {
            $row['code'] = $this->code();
            $row['code_id'] = $this->storeCode($aid, 'evaluate', $row['code']);
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
