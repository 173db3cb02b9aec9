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
        $maxima = ['max_run_time_ms', 'max_memory_kb', 'max_output_bytes', 'max_file_size_bytes', 'max_processes'];
        $out = [];
        foreach ((array) ($env['limits'] ?? []) as $k => $v) {
            if (!is_numeric($v) || in_array($k, $maxima, true)) {
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
     * The compile argv: the environment's "compile" line with {compileargs} and {linkargs}
     * replaced by its compile_args / link_args (each element one argument), {source}
     * by the source file's name and {binary} by the program's. $moreSources (a problem's
     * support sources, e.g. the instructor's main.c) follow the source where the environment
     * compiles several ("several_sources": C, C++).
     *
     * @param array<string, mixed> $env
     * @param list<string> $moreSources
     * @return list<string>
     */
    public static function compileArgv(array $env, string $source, string $binary, array $moreSources = []): array
    {
        $line = [];
        foreach ((array) $env['compile'] as $arg) {
            $line[] = $arg;
            if ($arg === '{source}' && ($env['several_sources'] ?? false) === true) {
                array_push($line, ...$moreSources);
            }
        }
        return self::expand($line, [
            '{compileargs}' => (array) ($env['compile_args'] ?? []),
            '{linkargs}' => (array) ($env['link_args'] ?? []),
        ], ['{source}' => $source, '{binary}' => $binary]);
    }

    /**
     * The support files compiled with the source: those with the environment's source
     * extension, in name order.
     *
     * @param array<string, mixed> $env
     * @param array<string, string> $files
     * @return list<string>
     */
    public static function moreSources(array $env, array $files): array
    {
        $ext = (string) ($env['source_ext'] ?? '');
        $names = array_values(array_filter(array_map('strval', array_keys($files)),
            static fn (string $n): bool => $ext !== '' && str_ends_with($n, $ext)));
        sort($names);
        return $names;
    }

    /**
     * The run argv: the environment's "run" line with {interpreterargs} replaced by its
     * interpreter_args and {binary} by the program's name, then the run arguments.
     *
     * @param array<string, mixed> $env
     * @param list<string> $runArgs
     * @return list<string>
     */
    public static function runArgv(array $env, string $binary, array $runArgs = []): array
    {
        $run = (array) ($env['run'] ?? ['./{binary}']);
        return [...self::expand($run, ['{interpreterargs}' => (array) ($env['interpreter_args'] ?? [])], ['{binary}' => $binary]), ...$runArgs];
    }

    /**
     * A run line's sizes from its limits, for runtimes that size their own memory (a JVM):
     * {heap_mb} and {stack_mb}. Where a memory cgroup binds the run, the heap may be the
     * whole limit (the cgroup answers memory_limit as for C); where only RLIMIT_AS binds, the
     * JVM's own reservations (code cache, class space, thread stacks, malloc arenas: about
     * RUNTIME_RESERVE_MB measured) must fit beside the heap, or it does not start.
     * The thread stack (every Java thread's, the main one's too) is 1/32 of the limit, 1 to
     * 16 MB (Jobe's Java has 8 MB, at 256 MB); under RLIMIT_AS only 1/128, 1 to 4 MB (8 MB
     * stacks for the JVM's half-dozen threads did not fit in 512 MB beside a 160 MB heap).
     *
     * @param list<string> $argv
     * @param array<string, int> $limits
     * @return list<string>
     */
    public static function sizeArgv(array $argv, array $limits, bool $memoryCgroup): array
    {
        $mb = intdiv((int) ($limits['MEMORY_KB'] ?? 262144), 1024);
        $heap = $memoryCgroup ? $mb : $mb - self::RUNTIME_RESERVE_MB;
        $stack = $memoryCgroup ? max(1, min(16, intdiv($mb, 32))) : max(1, min(4, intdiv($mb, 128)));
        $sizes = ['{heap_mb}' => (string) max(16, $heap), '{stack_mb}' => (string) $stack];
        return array_map(static fn (string $a): string => strtr($a, $sizes), $argv);
    }

    /** The address space a JVM reserves beside its heap (engine/README.md, Java: 320 MB failed, 384 MB started). */
    private const RUNTIME_RESERVE_MB = 352;

    /**
     * @param array<mixed> $line
     * @param array<string, array<mixed>> $lists elements replaced by a list of arguments
     * @param array<string, string> $names placeholders replaced inside an argument
     * @return list<string>
     */
    private static function expand(array $line, array $lists, array $names): array
    {
        $argv = [];
        foreach ($line as $arg) {
            $arg = (string) $arg;
            if (isset($lists[$arg])) {
                foreach ($lists[$arg] as $a) {
                    $argv[] = (string) $a;
                }
                continue;
            }
            $argv[] = strtr($arg, $names);
        }
        return $argv;
    }

    /**
     * The most a caller (the Jobe API) may ask of this environment, under the engine's names.
     *
     * @param array<string, mixed> $env
     * @return array<string, int>
     */
    public static function maxima(Config $c, array $env): array
    {
        $l = (array) ($env['limits'] ?? []);
        $base = self::limits($c, $env);
        $pick = static fn (string $k, int $div, int $fallback): int => is_numeric($l[$k] ?? null) ? intdiv((int) $l[$k], $div) : $fallback;
        return [
            'CPU_TIME_MS' => $pick('max_run_time_ms', 1, $base['CPU_TIME_MS']),
            'MEMORY_KB' => $pick('max_memory_kb', 1, $base['MEMORY_KB']),
            'OUTPUT_BYTES' => $pick('max_output_bytes', 1, $base['OUTPUT_BYTES']),
            'FILE_SIZE_KB' => $pick('max_file_size_bytes', 1024, $base['FILE_SIZE_KB']),
            'NPROC' => $pick('max_processes', 1, $base['NPROC']),
        ];
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
