<?php

declare(strict_types=1);

namespace Prutor\Engine\Jobe;

use Prutor\Engine\Config;
use Prutor\Engine\HttpError;
use Prutor\Engine\RequestBody;

/**
 * The Jobe REST API (trampgeek/jobe's restapi, as Moodle CodeRunner calls it) under
 * /jobe/index.php/restapi/ (and /jobe/restapi/): GET languages, POST runs, PUT and HEAD
 * files/{id}. Every call passes Access first (API key or an opened address). Errors are
 * JSON strings with the HTTP status, as Jobe answers them.
 */
final class Router
{
    private const PREFIX = '#^/jobe/(?:index\.php/)?restapi/(languages|runs|files/([^/]*))$#';

    public function __construct(private readonly Config $c)
    {
    }

    public static function handles(string $path): bool
    {
        return str_starts_with($path, '/jobe/');
    }

    /**
     * @param array<string, mixed> $server
     * @return array{0: int, 1: mixed, 2: array<string, string>}
     */
    public function route(string $method, string $path, array $server): array
    {
        try {
            if (!preg_match(self::PREFIX, rtrim($path, '/'), $m)) {
                throw new HttpError(404, 'No such Jobe resource: ' . substr($path, 0, 100));
            }
            $resource = $m[1] === 'languages' || $m[1] === 'runs' ? $m[1] : 'files';
            $allowed = ['languages' => ['GET'], 'runs' => ['POST'], 'files' => ['PUT', 'HEAD']][$resource];
            if (!in_array($method, $allowed, true)) {
                throw new HttpError(405, 'Use ' . implode(' or ', $allowed) . ' for ' . $resource, ['Allow' => implode(', ', $allowed)]);
            }
            // runs and file PUTs are each counted against the caller's own hourly budget
            $counted = $resource === 'runs' ? 'runs' : ($method === 'PUT' ? 'puts' : null);
            $caller = (new Access($this->c))->admit($server, $counted);
            $body = RequestBody::read($server, $this->c->jobeMaxBodyBytes);
            return match ($resource) {
                'languages' => [200, Languages::list($this->c), []],
                'runs' => (new Runs($this->c))->post(self::json($body), $caller),
                'files' => $this->files($method, $m[2] ?? '', $body, $caller['space']),
            };
        } catch (HttpError $e) {
            return [$e->status, $e->getMessage(), $e->headers];
        }
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    private function files(string $method, string $id, string $body, string $space): array
    {
        $cache = new FileCache($this->c, $space);
        if ($method === 'HEAD') {
            return [$cache->has($id) ? 204 : 404, null, []];
        }
        $in = self::json($body);
        if (!isset($in['file_contents']) || !is_string($in['file_contents'])) {
            throw new HttpError(400, 'put: missing file_contents parameter');
        }
        $cache->put($id, $in['file_contents']);
        return [204, null, []];
    }

    /** @return array<string, mixed> */
    private static function json(string $body): array
    {
        $in = json_decode($body, true);
        if (!is_array($in)) {
            throw new HttpError(400, 'Non-JSON post data received');
        }
        return $in;
    }
}
