<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;

/**
 * Test fixture: users, a problem with visible and hidden cases, assignments and sessions
 * created directly in MariaDB and memcached, removed again by cleanup().
 */
final class Fixture
{
    /** Students for bursts: each may have one engine request in flight. */
    public const BURST_USERS = 10;

    public \PDO $db;
    public \Memcached $mc;
    public string $url;
    public string $engineUrl;
    public string $tag;
    /** @var array<string, int> */
    public array $ids = [];
    /** @var array<string, array{cookie: string, csrf: string}> */
    public array $sessions = [];

    public function __construct()
    {
        $e = static fn (string $k, string $d): string => getenv($k) !== false && getenv($k) !== '' ? (string) getenv($k) : $d;
        $this->engineUrl = $e('ENGINE_URL', 'http://127.0.0.1:' . $e('ENGINE_PORT', '8081'));
        $this->url = $e('ENGINE_TEST_URL', $this->engineUrl);
        $this->db = new \PDO(sprintf('mysql:host=%s;port=%s;dbname=%s;charset=utf8mb4', $e('DB_HOST', '127.0.0.1'), $e('DB_PORT', '3307'), $e('DB_NAME', 'prutor')),
            $e('DB_USER', 'prutor'), $e('DB_PASSWORD', 'prutor-local'), [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION, \PDO::ATTR_DEFAULT_FETCH_MODE => \PDO::FETCH_ASSOC]);
        $this->db->exec("SET time_zone = '+00:00'");
        $this->mc = new \Memcached();
        $this->mc->addServer($e('MEMCACHED_HOST', '127.0.0.1'), (int) $e('MEMCACHED_PORT', '11211'));
        $this->tag = 'e4t' . bin2hex(random_bytes(4));
    }

    /** A fixture with its users and sessions created; skips the suite without a running stack. */
    public static function open(): self
    {
        $secret = (string) getenv('SESSION_SECRET');
        if ($secret === '') {
            TestCase::markTestSkipped('SESSION_SECRET is not set: the integration tests need the running stack');
        }
        $f = new self();
        if ($f->call('GET', '/healthz', null, null, false, $f->engineUrl)['status'] === 0) {
            TestCase::markTestSkipped('the engine is not running at ' . $f->engineUrl);
        }
        $f->awaitIdleGrader();
        $f->create($secret);
        return $f;
    }

    /**
     * The stack's own automatic grader evaluates through this engine too (e.g. the
     * submissions of a load run made just before): counters, slots and the slot users'
     * processes are shared, so the suite starts once it has nothing due (at most 180 s).
     */
    private function awaitIdleGrader(): void
    {
        $t0 = microtime(true);
        $due = fn (): int => (int) $this->db->query('SELECT COUNT(*) FROM grading_queue WHERE due_at <= UTC_TIMESTAMP(3)')->fetchColumn();
        while (($n = $due()) > 0 && microtime(true) - $t0 < 180) {
            usleep(500000);
        }
        if (microtime(true) - $t0 > 1) {
            fwrite(STDERR, sprintf("\n[fixture] waited %.0f s for the stack's grader (%d still due)\n", microtime(true) - $t0, $n));
        }
    }

    private function ins(string $sql, array $p): int
    {
        $this->db->prepare($sql)->execute($p);
        return (int) $this->db->lastInsertId();
    }

    public function create(string $secret): void
    {
        $t = $this->tag;
        $this->ids['section'] = $this->ins('INSERT INTO sections (code, name) VALUES (?, ?)', [$t, 'engine test']);
        // grader: a background session, as the webapp's automatic grader makes its own
        $people = ['student' => 'student', 'other' => 'student', 'staff' => 'instructor', 'ta' => 'ta', 'grader' => 'instructor'];
        for ($i = 0; $i < self::BURST_USERS; $i++) {
            $people['burst' . $i] = 'student';
        }
        foreach ($people as $k => $role) {
            $this->ids[$k] = $this->ins('INSERT INTO users (username, password_hash, name, role, section_id) VALUES (?, ?, ?, ?, ?)',
                [$t . $k, str_repeat('x', 60), 'Test ' . $k, $role, $this->ids['section']]);
        }
        // the same problem twice: practice attempts and event questions of one problem are
        // refused while the event is to come or under way (StudentApi)
        foreach (['problem' => ' sum', 'exam_problem' => ' exam sum'] as $k => $title) {
            $this->ids[$k] = $this->ins("INSERT INTO problems (title, statement_md, env, template_code, solution_code, time_limit_ms, memory_limit_kb, compare_mode)
                VALUES (?, '', 'c', '', '', 1000, 65536, 'trim')", [$t . $title]);
            foreach ([[1, "2 3\n", "5\n", 'visible', 1], [2, "-7 7\n", "0\n", 'visible', 1], [3, "1000000000 2000000000\n", "3000000000\n", 'hidden', 2], [4, "-5 -6\n", "-11\n", 'hidden', 1]] as [$pos, $in, $out, $vis, $w]) {
                $this->ins('INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES (?, ?, ?, ?, ?, ?)',
                    [$this->ids[$k], $pos, $in, $out, $vis, $w]);
            }
        }
        $pid = $this->ids['problem'];
        $this->ids['practice'] = $this->ins("INSERT INTO assignments (kind, user_id, problem_id, title) VALUES ('practice', ?, ?, 't')", [$this->ids['student'], $pid]);
        $this->ids['others'] = $this->ins("INSERT INTO assignments (kind, user_id, problem_id, title) VALUES ('practice', ?, ?, 't')", [$this->ids['other'], $pid]);
        for ($i = 0; $i < self::BURST_USERS; $i++) {
            $this->ids['practice_burst' . $i] = $this->ins("INSERT INTO assignments (kind, user_id, problem_id, title) VALUES ('practice', ?, ?, 't')",
                [$this->ids['burst' . $i], $pid]);
        }
        foreach (['open' => [-3600, 3600], 'closed' => [-7200, -3600]] as $k => [$a, $b]) {
            $ev = $this->ins("INSERT INTO events (title, type, description, published_at) VALUES (?, 'exam', '', UTC_TIMESTAMP(3))", [$t . $k]);
            $this->ids['event_' . $k] = $ev;
            $sc = $this->ins('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) + INTERVAL ? SECOND, UTC_TIMESTAMP(3) + INTERVAL ? SECOND)', [$ev, $a, $b]);
            $this->ins('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [$sc, $ev, $this->ids['section']]);
            $q = $this->ins('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, ?, 10)', [$ev, $this->ids['exam_problem']]);
            $this->ids[$k] = $this->ins("INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id) VALUES ('event', ?, ?, ?, ?)",
                [$this->ids['student'], $ev, $q, $this->ids['exam_problem']]);
        }
        foreach ($people as $k => $role) {
            $sid = rtrim(strtr(base64_encode(random_bytes(32)), '+/', '-_'), '=');
            $csrf = rtrim(strtr(base64_encode(random_bytes(32)), '+/', '-_'), '=');
            $this->mc->set('sess:' . $sid, json_encode(['uid' => $this->ids[$k], 'username' => $t . $k, 'name' => 'T', 'role' => $role,
                'section_id' => $this->ids['section'], 'csrf' => $csrf, 'created' => time()] + ($k === 'grader' ? ['background' => true] : [])), 3600);
            $sig = rtrim(strtr(base64_encode(hash_hmac('sha256', $sid, $secret, true)), '+/', '-_'), '=');
            $this->sessions[$k] = ['cookie' => 'prutor.sid=' . $sid . '.' . $sig, 'csrf' => $csrf, 'sid' => $sid];
        }
    }

    public function cleanup(): void
    {
        if (!$this->ids) {
            return;
        }
        foreach ($this->sessions as $s) {
            $this->mc->delete('sess:' . $s['sid']);
        }
        $users = [$this->ids['student'], $this->ids['other'], $this->ids['staff'], $this->ids['ta'], $this->ids['grader']];
        for ($i = 0; $i < self::BURST_USERS; $i++) {
            $users[] = $this->ids['burst' . $i];
        }
        $u = implode(',', array_map('intval', $users));
        $this->db->exec("DELETE FROM assignments WHERE user_id IN ($u)");
        foreach (['event_open', 'event_closed'] as $k) {
            $this->db->exec('DELETE FROM events WHERE id = ' . (int) $this->ids[$k]);
        }
        $this->db->exec('DELETE FROM problems WHERE id IN (' . (int) $this->ids['problem'] . ', ' . (int) $this->ids['exam_problem'] . ')');
        $this->db->exec("DELETE FROM users WHERE id IN ($u)");
        $this->db->exec('DELETE FROM sections WHERE id = ' . (int) $this->ids['section']);
        $this->ids = [];
    }

    /**
     * @param array<string, mixed>|null $body
     * @return array{status: int, json: mixed, headers: array<string, string>, ms: float}
     */
    public function call(string $method, string $path, ?array $body = null, ?string $who = 'student', bool $csrf = true, ?string $base = null, array $extra = []): array
    {
        $ch = curl_init(($base ?? $this->url) . $path);
        $h = ['Accept: application/json', ...$extra];
        if ($who !== null) {
            $h[] = 'Cookie: ' . $this->sessions[$who]['cookie'];
            if ($csrf) {
                $h[] = 'X-CSRF-Token: ' . $this->sessions[$who]['csrf'];
            }
        }
        if ($body !== null) {
            $h[] = 'Content-Type: application/json';
            curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($body));
        }
        $headers = [];
        curl_setopt_array($ch, [CURLOPT_CUSTOMREQUEST => $method, CURLOPT_RETURNTRANSFER => true, CURLOPT_HTTPHEADER => $h, CURLOPT_TIMEOUT => 60,
            CURLOPT_HEADERFUNCTION => static function ($c, string $line) use (&$headers): int {
                $kv = explode(':', $line, 2);
                if (count($kv) === 2) {
                    $headers[strtolower(trim($kv[0]))] = trim($kv[1]);
                }
                return strlen($line);
            }]);
        $t = microtime(true);
        $out = (string) curl_exec($ch);
        $ms = (microtime(true) - $t) * 1000;
        $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        curl_close($ch);
        return ['status' => $status, 'json' => json_decode($out, true), 'headers' => $headers, 'ms' => $ms, 'raw' => $out];
    }

    /** @return array<string, int> */
    public function metrics(): array
    {
        $r = $this->call('GET', '/metrics', null, null, false, $this->engineUrl);
        return (array) ($r['json']['counters'] ?? []);
    }
}
