<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * HTTP front of the engine: /compile, /execute, /evaluate, /healthz, /metrics; the
 * Jobe-compatible API under /jobe/ goes to Jobe\Router. JSON in (form-encoded
 * accepted), JSON out; errors are {"error": "..."} with a 4xx/5xx status.
 */
final class Api
{
    private const WINDOW_JOIN = "JOIN users u ON u.id = a.user_id AND u.active = 1
        LEFT JOIN slots sl ON sl.event_id = a.event_id AND sl.section_id = u.section_id
        LEFT JOIN schedules s ON s.id = sl.schedule_id";
    private const WINDOW_OPEN = "(a.kind <> 'event' OR (UTC_TIMESTAMP(3) >= s.start_time
        AND UTC_TIMESTAMP(3) < s.stop_time + INTERVAL a.extra_minutes MINUTE))";
    private const MAX_CODE = 262144;
    private const MAX_INPUT = 1048576;

    /** @var array<string, mixed> */
    private array $in = [];

    public function __construct(private readonly Config $c)
    {
    }

    /** @param array<string, mixed> $server */
    public function handle(array $server, string $body): void
    {
        $t0 = hrtime(true);
        $method = (string) ($server['REQUEST_METHOD'] ?? 'GET');
        $path = (string) parse_url((string) ($server['REQUEST_URI'] ?? '/'), PHP_URL_PATH);
        try {
            [$status, $out, $headers] = $this->route($method, $path, $server, $body);
        } catch (HttpError $e) {
            [$status, $out, $headers] = [$e->status, ['error' => $e->getMessage()], $e->headers];
        } catch (\PDOException $e) {
            error_log('prutor-engine: database: ' . $e->getMessage());
            [$status, $out, $headers] = [503, ['error' => 'the database is not available, try again'], ['Retry-After' => '2']];
        } catch (\Throwable $e) {
            error_log('prutor-engine: ' . $e::class . ': ' . $e->getMessage() . ' at ' . $e->getFile() . ':' . $e->getLine());
            [$status, $out, $headers] = [500, ['error' => 'internal error in the engine'], []];
        }
        http_response_code($status);
        header('Content-Type: application/json');
        header('Cache-Control: no-store');
        header('X-Engine-Queries: ' . Db::$queries);
        header('X-Engine-Ms: ' . (int) ((hrtime(true) - $t0) / 1_000_000));
        foreach ($headers as $k => $v) {
            header($k . ': ' . $v);
        }
        if ($status === 204) {
            return;
        }
        echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PARTIAL_OUTPUT_ON_ERROR);
    }

    /**
     * @param array<string, mixed> $server
     * @return array{0: int, 1: mixed, 2: array<string, string>}
     */
    private function route(string $method, string $path, array $server, string $body): array
    {
        if (Jobe\Router::handles($path)) {
            return (new Jobe\Router($this->c))->route($method, $path, $server, $body);
        }
        $path = rtrim($path, '/') ?: '/';
        $routes = [
            '/compile' => 'POST', '/execute' => 'POST', '/evaluate' => 'POST',
            '/healthz' => 'GET', '/engine/healthz' => 'GET', '/metrics' => 'GET',
        ];
        if (!isset($routes[$path])) {
            throw new HttpError(404, 'no such engine endpoint');
        }
        if ($routes[$path] !== $method) {
            throw new HttpError(405, 'use ' . $routes[$path] . ' for ' . $path, ['Allow' => $routes[$path]]);
        }
        if ($method === 'POST') {
            $this->in = self::parseBody((string) ($server['CONTENT_TYPE'] ?? ''), $body);
        }
        switch ($path) {
            case '/healthz':
            case '/engine/healthz':
                return $this->health();
            case '/metrics':
                return [200, ['counters' => Metrics::all(), 'isolation' => apcu_fetch('sandbox:isolation') ?: 'unknown'], []];
        }
        $session = Session::load($this->c, (string) ($server['HTTP_COOKIE'] ?? ''));
        if ($session === null) {
            throw new HttpError(401, 'please log in first');
        }
        $token = (string) ($server['HTTP_X_CSRF_TOKEN'] ?? ($this->in['_csrf'] ?? ''));
        if (!$session->csrfOk($token)) {
            throw new HttpError(403, 'the page is out of date (CSRF check failed): reload it and try again');
        }
        return match ($path) {
            '/compile' => $this->compile($session),
            '/execute' => $this->execute($session),
            '/evaluate' => $this->evaluate($session),
        };
    }

    /** @return array<string, mixed> */
    public static function parseBody(string $contentType, string $body): array
    {
        if (stripos($contentType, 'application/json') !== false || ($body !== '' && $body[0] === '{')) {
            $in = json_decode($body, true);
            if (!is_array($in)) {
                throw new HttpError(400, 'the request body is not valid JSON');
            }
            return $in;
        }
        if (stripos($contentType, 'multipart/form-data') !== false) {
            return $_POST;
        }
        parse_str($body, $in);
        return $in;
    }

    private function int(string $k): int
    {
        $v = $this->in[$k] ?? null;
        if (is_int($v) || (is_string($v) && ctype_digit($v))) {
            return (int) $v;
        }
        throw new HttpError(400, 'missing or invalid ' . $k);
    }

    private function str(string $k, int $max, ?string $default = null): string
    {
        $v = $this->in[$k] ?? $default;
        if (!is_string($v)) {
            throw new HttpError(400, 'missing ' . $k);
        }
        if (strlen($v) > $max) {
            throw new HttpError(413, $k . ' is too long (at most ' . $max . ' bytes)');
        }
        return $v;
    }

    /** Authorise and store the code in one statement; returns the new code id. */
    private function storeCode(Session $s, int $aid, string $trigger, string $code): int
    {
        $st = Db::run($this->c, 'INSERT INTO code (assignment_id, save_trigger, code)
            SELECT a.id, ?, ? FROM assignments a ' . self::WINDOW_JOIN . '
             WHERE a.id = ? AND a.user_id = ? AND ' . self::WINDOW_OPEN . ' LIMIT 1', [$trigger, $code, $aid, $s->userId()]);
        if ($st->rowCount() !== 1) {
            throw new HttpError(404, 'no such assignment of yours, or its event is not open now');
        }
        return Db::lastId($this->c);
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    private function compile(Session $s): array
    {
        $aid = $this->int('assignment_id');
        $code = $this->str('code', self::MAX_CODE);
        $env = Environments::get($this->c, $this->str('env', 32, 'c'));
        $codeId = $this->storeCode($s, $aid, 'compile', $code);
        $runner = new Runner($this->c);
        $r = $runner->compile($env, $code);
        $runner->release();
        if ($r['internal']) {
            Telemetry::log($this->c, 'compile', ['user_id' => $s->userId(), 'assignment_id' => $aid, 'ok' => false, 'ms' => $r['ms'], 'internal' => true]);
            throw new HttpError(500, 'the sandbox failed to compile: try again');
        }
        Db::run($this->c, 'INSERT INTO compilations (code_id, assignment_id, success, messages, from_cache) VALUES (?, ?, ?, ?, ?)',
            [$codeId, $aid, (int) $r['ok'], $r['raw'], (int) $r['from_cache']]);
        Metrics::inc('compile');
        Telemetry::log($this->c, 'compile', ['user_id' => $s->userId(), 'assignment_id' => $aid, 'ok' => $r['ok'], 'ms' => $r['ms'], 'from_cache' => $r['from_cache']]);
        return [200, [
            'compiled' => $r['ok'],
            'verdict' => $r['ok'] ? null : Verdict::COMPILATION_ERROR,
            'messages' => $r['messages'],
            'raw' => $r['raw'],
            'code_id' => $codeId,
            'from_cache' => $r['from_cache'],
            'ms' => $r['ms'],
        ], []];
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    private function execute(Session $s): array
    {
        $t0 = hrtime(true);
        $aid = $this->int('assignment_id');
        $code = $this->str('code', self::MAX_CODE);
        $input = $this->str('input', self::MAX_INPUT, '');
        $env = Environments::get($this->c, $this->str('env', 32, 'c'));
        $codeId = $this->storeCode($s, $aid, 'execute', $code);
        $p = Db::run($this->c, 'SELECT p.time_limit_ms, p.memory_limit_kb FROM assignments a
            LEFT JOIN problems p ON p.id = a.problem_id WHERE a.id = ?', [$aid])->fetch() ?: [];
        $limits = Environments::limits($this->c, $env, [
            'CPU_TIME_MS' => (int) ($p['time_limit_ms'] ?? 0), 'MEMORY_KB' => (int) ($p['memory_limit_kb'] ?? 0),
        ]);
        $runner = new Runner($this->c);
        $cr = $runner->compile($env, $code);
        if ($cr['internal']) {
            throw new HttpError(500, 'the sandbox failed to compile: try again');
        }
        if (!$cr['ok']) {
            $res = ['verdict' => Verdict::COMPILATION_ERROR, 'stdout' => '', 'stderr' => '', 'exit_code' => null,
                'signal' => null, 'signal_name' => null, 'time_ms' => 0, 'memory_kb' => 0];
        } else {
            $res = $runner->run((string) $cr['binary'], $input, $limits, Environments::runArgv($env, Runner::BINARY));
        }
        $runner->release();
        Db::run($this->c, 'INSERT INTO executions (code_id, assignment_id, input, stdout, stderr, exit_code, signal_no, time_ms, memory_kb, verdict)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [$codeId, $aid, $input, $res['stdout'], $res['stderr'],
            $res['exit_code'], $res['signal'], $res['time_ms'], $res['memory_kb'], $res['verdict']]);
        Metrics::inc('execute');
        $ms = (int) ((hrtime(true) - $t0) / 1_000_000);
        Telemetry::log($this->c, 'execute', ['user_id' => $s->userId(), 'assignment_id' => $aid, 'ok' => $res['verdict'] === Verdict::ACCEPTED, 'verdict' => $res['verdict'], 'ms' => $ms]);
        return [200, [
            'verdict' => $res['verdict'],
            'compiled' => $cr['ok'],
            'compile' => $cr['ok'] ? null : ['messages' => $cr['messages'], 'raw' => $cr['raw']],
            'stdout' => $res['stdout'],
            'stderr' => $res['stderr'],
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

    /** @return list<array<string, mixed>> visible and hidden cases of a problem, cached per problem version */
    private function testCases(int $problemId, string $updatedAt): array
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

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    private function evaluate(Session $s): array
    {
        $t0 = hrtime(true);
        if (!isset($this->in['assignment_id']) && isset($this->in['problem_id'])) {
            if (!$s->isStaff()) {
                throw new HttpError(403, 'only staff may evaluate code against a problem directly');
            }
            return $this->staffEvaluate($s);
        }
        $aid = $this->int('assignment_id');
        if (isset($this->in['code'])) {
            $this->storeCode($s, $aid, 'evaluate', $this->str('code', self::MAX_CODE));
        }
        $row = Db::run($this->c, 'SELECT a.problem_id, COALESCE(q.max_marks, 100) AS max_marks, p.env, p.time_limit_ms,
                p.memory_limit_kb, p.compare_mode, p.updated_at, c.id AS code_id, c.code
              FROM assignments a ' . self::WINDOW_JOIN . '
              JOIN problems p ON p.id = a.problem_id
              LEFT JOIN event_questions q ON q.id = a.question_id
              LEFT JOIN code c ON c.id = (SELECT c2.id FROM code c2 WHERE c2.assignment_id = a.id
                                           ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1)
             WHERE a.id = ? AND a.user_id = ? AND ' . self::WINDOW_OPEN . ' LIMIT 1', [$aid, $s->userId()])->fetch();
        if (!$row) {
            throw new HttpError(404, 'no such assignment of yours with a problem, or its event is not open now');
        }
        if ($row['code_id'] === null) {
            throw new HttpError(409, 'save your code before evaluating it');
        }
        $cases = $this->testCases((int) $row['problem_id'], (string) $row['updated_at']);
        $res = $this->judge($row, (string) $row['code'], $cases);
        $runId = self::ulid();
        if ($cases) {
            $sql = 'INSERT INTO evaluations (run_id, code_id, assignment_id, test_case_id, verdict, passed, actual_output, time_ms) VALUES '
                . implode(',', array_fill(0, count($cases), '(?, ?, ?, ?, ?, ?, ?, ?)'));
            $params = [];
            foreach ($res['rows'] as $r) {
                array_push($params, $runId, (int) $row['code_id'], $aid, $r['test_case_id'], $r['verdict'], (int) $r['passed'],
                    substr($r['actual'], 0, 65536), $r['time_ms']);
            }
            Db::run($this->c, $sql, $params);
        }
        Db::run($this->c, 'UPDATE assignments SET score = ? WHERE id = ? AND user_id = ?', [$res['score'], $aid, $s->userId()]);
        Metrics::inc('evaluate');
        $ms = (int) ((hrtime(true) - $t0) / 1_000_000);
        Telemetry::log($this->c, 'evaluate', ['user_id' => $s->userId(), 'assignment_id' => $aid, 'ok' => $res['verdict'] === Verdict::ACCEPTED,
            'verdict' => $res['verdict'], 'score' => $res['score'], 'ms' => $ms]);
        unset($res['rows']);
        return [200, $res + ['run_id' => $runId, 'code_id' => (int) $row['code_id'], 'ms' => $ms], []];
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    private function staffEvaluate(Session $s): array
    {
        $pid = $this->int('problem_id');
        $code = $this->str('code', self::MAX_CODE);
        $row = Db::run($this->c, 'SELECT id AS problem_id, 100 AS max_marks, env, time_limit_ms, memory_limit_kb, compare_mode, updated_at
            FROM problems WHERE id = ?', [$pid])->fetch();
        if (!$row) {
            throw new HttpError(404, 'no such problem');
        }
        $res = $this->judge($row, $code, $this->testCases($pid, (string) $row['updated_at']), true);
        unset($res['rows']);
        Telemetry::log($this->c, 'evaluate', ['user_id' => $s->userId(), 'problem_id' => $pid, 'staff' => true, 'verdict' => $res['verdict']]);
        return [200, $res + ['stored' => false], []];
    }

    /**
     * Compiles once and runs every case; visible cases show expected/actual, hidden only pass/fail.
     *
     * @param array<string, mixed> $p problem row
     * @param list<array<string, mixed>> $cases
     * @return array<string, mixed>
     */
    private function judge(array $p, string $code, array $cases, bool $showAll = false): array
    {
        $env = Environments::get($this->c, (string) ($p['env'] ?: 'c'));
        $limits = Environments::limits($this->c, $env, [
            'CPU_TIME_MS' => (int) $p['time_limit_ms'], 'MEMORY_KB' => (int) $p['memory_limit_kb'],
        ]);
        $runner = new Runner($this->c);
        $cr = $runner->compile($env, $code);
        if ($cr['internal']) {
            throw new HttpError(500, 'the sandbox failed to compile: try again');
        }
        $out = [];
        $rows = [];
        $total = 0;
        $got = 0;
        $passedN = 0;
        $overall = Verdict::ACCEPTED;
        foreach ($cases as $tc) {
            $w = (int) $tc['weight'];
            $total += $w;
            if (!$cr['ok']) {
                $r = ['verdict' => Verdict::COMPILATION_ERROR, 'stdout' => '', 'stderr' => '', 'time_ms' => 0, 'signal_name' => null];
            } else {
                $r = $runner->run((string) $cr['binary'], (string) $tc['input'], $limits, Environments::runArgv($env, Runner::BINARY));
                if ($r['verdict'] === Verdict::ACCEPTED && !Compare::equal((string) $tc['expected_output'], $r['stdout'], (string) $p['compare_mode'])) {
                    $r['verdict'] = Verdict::WRONG_ANSWER;
                }
            }
            $passed = $r['verdict'] === Verdict::ACCEPTED;
            if ($passed) {
                $got += $w;
                $passedN++;
            } elseif ($overall === Verdict::ACCEPTED) {
                $overall = $r['verdict'];
            }
            $rows[] = ['test_case_id' => (int) $tc['id'], 'verdict' => $r['verdict'], 'passed' => $passed, 'actual' => $r['stdout'], 'time_ms' => $r['time_ms']];
            $case = ['position' => (int) $tc['position'], 'visibility' => $tc['visibility'], 'passed' => $passed];
            if ($tc['visibility'] === 'visible' || $showAll) {
                $case += ['verdict' => $r['verdict'], 'input' => $tc['input'], 'expected' => $tc['expected_output'],
                    'actual' => $r['stdout'], 'stderr' => substr($r['stderr'], 0, 4096), 'signal_name' => $r['signal_name'], 'time_ms' => $r['time_ms']];
            }
            $out[] = $case;
        }
        $runner->release();
        if (!$cases && !$cr['ok']) {
            $overall = Verdict::COMPILATION_ERROR;
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

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    private function health(): array
    {
        $comp = [];
        $ok = true;
        try {
            Db::pdo($this->c)->query('SELECT 1')->fetchColumn();
            $comp['mysql'] = 'ok';
        } catch (\Throwable $e) {
            $comp['mysql'] = 'down';
            $ok = false;
        }
        $mc = Session::memcached($this->c);
        $mc->get('health:engine');
        $rc = $mc->getResultCode();
        $comp['memcached'] = in_array($rc, [\Memcached::RES_SUCCESS, \Memcached::RES_NOTFOUND], true) ? 'ok' : 'down';
        $ok = $ok && $comp['memcached'] === 'ok';
        $mode = in_array($this->c->isolation, ['ns', 'plain'], true) ? $this->c->isolation : apcu_fetch('sandbox:isolation');
        if (!is_string($mode)) {
            $slot = Slots::tryAcquire($this->c);
            if ($slot !== null) {
                $mode = (new Sandbox($this->c))->isolation($slot);
                Slots::release($slot);
            }
        }
        $launcher = is_file($this->c->launcher) && is_executable($this->c->launcher);
        $comp['sandbox'] = ['mode' => is_string($mode) ? ($mode === 'ns' ? 'namespaces' : 'fallback') : 'unknown',
            'launcher' => $launcher ? 'ok' : 'missing', 'slots' => $this->c->slots];
        $ok = $ok && $launcher;
        return [$ok ? 200 : 503, ['status' => $ok ? 'ok' : 'down', 'components' => $comp], []];
    }

    public static function ulid(): string
    {
        $alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
        $t = (int) (microtime(true) * 1000);
        $s = '';
        for ($i = 9; $i >= 0; $i--) {
            $s = $alphabet[$t % 32] . $s;
            $t = intdiv($t, 32);
        }
        for ($i = 0; $i < 16; $i++) {
            $s .= $alphabet[random_int(0, 31)];
        }
        return $s;
    }
}
