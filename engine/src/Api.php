<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * HTTP front of the engine: routes /compile, /execute, /evaluate (StudentApi, StaffApi),
 * /healthz (Health), /metrics, and the Jobe-compatible API under /jobe/ (Jobe\Router).
 * JSON in (form-encoded accepted), JSON out; errors are {"error": "..."} with a 4xx/5xx status.
 */
final class Api
{
    public function __construct(private readonly Config $c)
    {
    }

    /** @param array<string, mixed> $server */
    public function handle(array $server): void
    {
        $t0 = hrtime(true);
        $method = (string) ($server['REQUEST_METHOD'] ?? 'GET');
        $path = (string) parse_url((string) ($server['REQUEST_URI'] ?? '/'), PHP_URL_PATH);
        try {
            [$status, $out, $headers] = $this->route($method, $path, $server);
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
        header('Content-Type: ' . ($out instanceof PlainText ? $out->type : 'application/json'));
        header('Cache-Control: no-store');
        header('X-Engine-Queries: ' . Db::$queries);
        header('X-Engine-Ms: ' . (int) ((hrtime(true) - $t0) / 1_000_000));
        foreach ($headers as $k => $v) {
            header($k . ': ' . $v);
        }
        if ($status === 204) {
            return;
        }
        if ($out instanceof PlainText) {
            echo $out->text;
            return;
        }
        echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PARTIAL_OUTPUT_ON_ERROR);
        if ($status === 408 || $status === 413) {
            // a refused body: sent now, Apache marks the connection to close and does not
            // first read (discard) the rest of the body, which a slow client never finishes
            flush();
        }
    }

    /**
     * @param array<string, mixed> $server
     * @return array{0: int, 1: mixed, 2: array<string, string>}
     */
    private function route(string $method, string $path, array $server): array
    {
        if (Jobe\Router::handles($path)) {
            return (new Jobe\Router($this->c))->route($method, $path, $server);
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
        switch ($path) {
            case '/healthz':
            case '/engine/healthz':
                return (new Health($this->c))->check();
            case '/metrics':
                // for the scraper on the engine's own address: what came through the public
                // front door (HAProxy adds X-Forwarded-For to every request it passes) is refused
                if (isset($server['HTTP_X_FORWARDED_FOR'])) {
                    throw new HttpError(404, 'no such engine endpoint');
                }
                if (str_contains((string) ($server['HTTP_ACCEPT'] ?? ''), 'application/json')) {
                    return [200, ['counters' => Metrics::all(), 'isolation' => apcu_fetch('sandbox:isolation') ?: 'unknown'], []];
                }
                return [200, new PlainText(Metrics::prometheus($this->c), 'text/plain; version=0.0.4; charset=utf-8'), []];
        }
        // who asks, before a byte of the body is read: an anonymous request costs no read
        $session = Session::load($this->c, (string) ($server['HTTP_COOKIE'] ?? ''));
        if ($session === null) {
            throw new HttpError(401, 'please log in first');
        }
        $in = Input::parse((string) ($server['CONTENT_TYPE'] ?? ''), RequestBody::read($server, $this->c->maxBodyBytes));
        $token = (string) ($server['HTTP_X_CSRF_TOKEN'] ?? ($in->fields['_csrf'] ?? ''));
        if (!$session->csrfOk($token)) {
            throw new HttpError(403, 'the page is out of date (CSRF check failed): reload it and try again');
        }
        LabLock::check($this->c, $session, $server);
        // one engine request at a time per student, released when this request ends (staff are
        // bounded by admission control alone; the automatic grader's background session never
        // gets the last free slot: Slots::acquire)
        $share = new FairShare($this->c);
        if ($session->role() === 'student') {
            $share->claim($session->userId(), (string) ($server['HTTP_X_PRUTOR_REQUEST_ID'] ?? ''));
        }
        try {
            if ($path === '/evaluate' && !$in->has('assignment_id') && $in->has('problem_id')) {
                return (new StaffApi($this->c, $session, $in))->evaluate();
            }
            $student = new StudentApi($this->c, $session, $in, $server);
            return match ($path) {
                '/compile' => $student->compile(),
                '/execute' => $student->execute(),
                '/evaluate' => $student->evaluate($share),
            };
        } finally {
            $share->release();
        }
    }

    /** @return array<string, mixed> */
    public static function parseBody(string $contentType, string $body): array
    {
        return Input::parse($contentType, $body)->fields;
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
