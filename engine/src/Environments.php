<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** Programming environments from nosql/environments.json, cached per worker in APCu. */
final class Environments
{
    /** @return array<string, array<string, mixed>> by slug */
    public static function all(Config $c): array
    {
        $mtime = (int) @filemtime($c->environmentsFile);
        $key = 'envs:' . md5($c->environmentsFile) . ':' . $mtime;
        $envs = apcu_fetch($key);
        if (is_array($envs)) {
            return $envs;
        }
        $list = json_decode((string) @file_get_contents($c->environmentsFile), true);
        $envs = [];
        foreach (is_array($list) ? $list : [] as $e) {
            if (is_array($e) && isset($e['slug'], $e['compile']) && is_array($e['compile'])) {
                $envs[(string) $e['slug']] = $e;
            }
        }
        apcu_store($key, $envs, 3600);
        return $envs;
    }

    /** @return array<string, mixed> */
    public static function get(Config $c, string $slug): array
    {
        $envs = self::all($c);
        if (!isset($envs[$slug])) {
            throw new HttpError(400, 'unknown environment "' . substr($slug, 0, 32) . '"');
        }
        return $envs[$slug];
    }

    /**
     * The environment's limits under the engine's names (nosql's lower-case names accepted).
     *
     * @param array<string, mixed> $env
     * @return array<string, int>
     */
    public static function envLimits(array $env): array
    {
        $alias = [
            'run_time_ms' => ['CPU_TIME_MS', 1], 'memory_kb' => ['MEMORY_KB', 1], 'output_bytes' => ['OUTPUT_BYTES', 1],
            'file_size_bytes' => ['FILE_SIZE_KB', 1024], 'processes' => ['NPROC', 1], 'open_files' => ['NOFILE', 1],
            'compile_time_ms' => ['COMPILE_CPU_TIME_MS', 1],
        ];
        $out = [];
        foreach ((array) ($env['limits'] ?? []) as $k => $v) {
            if (!is_numeric($v)) {
                continue;
            }
            if (isset($alias[$k])) {
                $out[$alias[$k][0]] = intdiv((int) $v, $alias[$k][1]);
            } else {
                $out[strtoupper((string) $k)] = (int) $v;
            }
        }
        return $out;
    }

    /**
     * Limits for a run: engine defaults, then the environment's, then the problem's.
     *
     * @param array<string, mixed> $env
     * @param array<string, int> $problem
     * @return array<string, int>
     */
    public static function limits(Config $c, array $env, array $problem = []): array
    {
        $l = $c->runLimits;
        foreach (self::envLimits($env) as $k => $v) {
            if (isset($l[$k]) && !str_starts_with($k, 'COMPILE_')) {
                $l[$k] = $v;
            }
        }
        foreach ($problem as $k => $v) {
            if (isset($l[$k]) && $v > 0) {
                $l[$k] = $v;
            }
        }
        return $l;
    }
}
