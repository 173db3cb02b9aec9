<?php

declare(strict_types=1);

namespace Prutor\Engine\Jobe;

use Prutor\Engine\Config;
use Prutor\Engine\Environments;

/**
 * GET languages: [[language_id, version], ...] for every environment whose compiler or
 * interpreter answers its version_command here (as Jobe drops languages it cannot run).
 * The versions are asked once per hour per worker, never per request; a version may come on
 * stderr (java -version).
 */
final class Languages
{
    /** @return list<array{0: string, 1: string}> */
    public static function list(Config $c): array
    {
        $envs = Environments::all($c);
        $key = 'jobe:languages:' . md5(json_encode(array_keys($envs)) . (string) @filemtime($c->environmentsFile));
        $cached = apcu_fetch($key);
        if (is_array($cached)) {
            return $cached;
        }
        $out = [];
        foreach ($envs as $slug => $env) {
            $version = self::version($env);
            if ($version !== null) {
                $out[] = [(string) $slug, $version];
            }
        }
        apcu_store($key, $out, 3600);
        return $out;
    }

    /** @param array<string, mixed> $env */
    private static function version(array $env): ?string
    {
        $cmd = $env['version_command'] ?? null;
        if (!is_array($cmd) || $cmd === []) {
            return preg_match('/\d+(?:\.\d+)*/', (string) ($env['version'] ?? ''), $m) ? $m[0] : null;
        }
        $p = proc_open(array_map('strval', $cmd), [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]],
            $pipes, null, ['PATH' => '/usr/bin:/bin']);
        if (!is_resource($p)) {
            return null;
        }
        $text = (string) stream_get_contents($pipes[1]);
        fclose($pipes[1]);
        if (proc_close($p) !== 0) {
            return null;
        }
        return preg_match('/\d+(?:\.\d+)*/', $text, $m) ? $m[0] : null;
    }
}
