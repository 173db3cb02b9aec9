<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** Counters shared by the Apache workers (APCu); GET /metrics shows them. */
final class Metrics
{
    public const NAMES = ['gcc', 'compile_run', 'cache_hit', 'cache_wait_hit', 'run', 'busy', 'compile', 'execute', 'evaluate', 'jobe', 'busy_jobe'];

    public static function inc(string $name, int $by = 1): void
    {
        if (function_exists('apcu_inc')) {
            apcu_inc('m:' . $name, $by, $ok);
            if (!$ok) {
                apcu_add('m:' . $name, $by);
            }
        }
    }

    /** @return array<string, int> */
    public static function all(): array
    {
        $out = [];
        foreach (self::NAMES as $n) {
            $v = function_exists('apcu_fetch') ? apcu_fetch('m:' . $n) : 0;
            $out[$n] = is_int($v) ? $v : 0;
        }
        return $out;
    }
}
