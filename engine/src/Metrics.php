<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * The engine's figures, shared by the Apache workers through APCu, and GET /metrics, which
 * shows them in Prometheus' text exposition format (version 0.0.4), or as the older JSON
 * ({"counters": ...}) to a client that asks for application/json.
 *
 * Counters and histogram buckets are APCu integers (apcu_inc is atomic across the workers);
 * a histogram's sum is kept in microseconds for the same reason. Labels come only from closed
 * sets (environment slugs the engine knows, verdicts, lanes), so the series stay few. What is
 * true "now" (slots busy, requests waiting) is read at scrape time from the slot locks and from
 * one short-lived APCu entry per waiting request, so a worker killed mid-wait cannot leave a
 * gauge wrong for longer than the entry's TTL.
 */
final class Metrics
{
    /** Old event counters, still in the JSON (tests and benches read them). */
    public const NAMES = ['gcc', 'compile_run', 'cache_hit', 'cache_wait_hit', 'run', 'busy', 'compile', 'execute', 'evaluate', 'jobe', 'busy_jobe'];

    /** Seconds: a cached compile is ~1 ms, a fresh C compile 40-80 ms, C++ with the STL ~1 s. */
    public const COMPILE_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
    /** Seconds: a run is bounded by its CPU limit (default 2 s) and its wall limit. */
    public const RUN_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
    /** Seconds: a wait for a slot ends at ENGINE_QUEUE_WAIT_MS (3 s by default) with 503 busy. */
    public const WAIT_BUCKETS_S = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];

    private const PREFIX = 'pm:';
    private const WAITING_PREFIX = 'pw:';

    /** @var array<string, array{0: string, 1: string}> family => [type, help] */
    private const FAMILIES = [
        'prutor_engine_runs_total' => ['counter', 'Finished compiles, executes, evaluations and Jobe runs, by kind, language and verdict.'],
        'prutor_engine_busy_total' => ['counter', 'Requests refused 503 busy after waiting ENGINE_QUEUE_WAIT_MS for a slot, by lane.'],
        'prutor_engine_compile_seconds' => ['histogram', 'Wall time of a compile, a wait for its slot included (cache hits labelled), by language.'],
        'prutor_engine_run_seconds' => ['histogram', 'Wall time of one sandboxed run of a program, by language.'],
        'prutor_engine_slot_wait_seconds' => ['histogram', 'Time a request waited for a sandbox slot (or its lane), refusals included, by lane.'],
    ];

    public static function inc(string $name, int $by = 1): void
    {
        if (function_exists('apcu_inc')) {
            self::add('m:' . $name, $by);
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

    /** One finished run of a kind (compile, execute, evaluate, jobe) in a language, with its verdict. */
    public static function run(string $kind, string $language, string $verdict): void
    {
        self::add(self::key('prutor_engine_runs_total', ['kind' => $kind, 'language' => $language, 'verdict' => $verdict]), 1);
    }

    public static function refused(string $lane): void
    {
        self::add(self::key('prutor_engine_busy_total', ['lane' => $lane]), 1);
    }

    public static function compileSeconds(string $language, bool $cached, float $seconds): void
    {
        self::observe('prutor_engine_compile_seconds', ['language' => $language, 'cache' => $cached ? 'hit' : 'miss'], $seconds, self::COMPILE_BUCKETS_S);
    }

    public static function runSeconds(string $language, float $seconds): void
    {
        self::observe('prutor_engine_run_seconds', ['language' => $language], $seconds, self::RUN_BUCKETS_S);
    }

    /**
     * A request starts waiting for a slot of $lane: counted in prutor_engine_queue_length until
     * waited() (or, if the worker dies, until the entry's TTL of the longest wait plus a second).
     */
    public static function waiting(Config $c, string $lane): string
    {
        $key = self::WAITING_PREFIX . $lane . ':' . getmypid() . ':' . random_int(0, PHP_INT_MAX);
        if (function_exists('apcu_store')) {
            apcu_store($key, 1, intdiv($c->queueWaitMs, 1000) + 2);
        }
        return $key;
    }

    /** The wait that waiting() began has ended (a slot, or a refusal) after $seconds. */
    public static function waited(string $key, string $lane, float $seconds): void
    {
        if ($key !== '' && function_exists('apcu_delete')) {
            apcu_delete($key);
        }
        self::observe('prutor_engine_slot_wait_seconds', ['lane' => $lane], $seconds, self::WAIT_BUCKETS_S);
    }

    /** The exposition: the gauges read now, then every counter and histogram kept in APCu. */
    public static function prometheus(Config $c): string
    {
        $busy = self::busyLocks($c, 'slot', $c->slotBase, $c->slots);
        $jobeBusy = self::busyLocks($c, 'jobe', 0, $c->jobeSlots);
        $waiting = ['slots' => 0, 'jobe' => 0];
        $series = [];
        if (class_exists(\APCUIterator::class) && function_exists('apcu_enabled') && apcu_enabled()) {
            foreach (new \APCUIterator('/^p[mw]:/', APC_ITER_KEY | APC_ITER_VALUE) as $k => $e) {
                if (str_starts_with($k, self::WAITING_PREFIX)) {
                    $lane = explode(':', $k)[1];
                    $waiting[$lane] = ($waiting[$lane] ?? 0) + 1;
                } else {
                    $series[substr($k, strlen(self::PREFIX))] = (int) $e['value'];
                }
            }
        }
        $out = "# HELP prutor_engine_slots Sandbox slots this engine has (ENGINE_SLOTS), and those the Jobe lane may hold.\n"
            . "# TYPE prutor_engine_slots gauge\n"
            . 'prutor_engine_slots{lane="slots"} ' . $c->slots . "\n"
            . 'prutor_engine_slots{lane="jobe"} ' . $c->jobeSlots . "\n"
            . "# HELP prutor_engine_slots_busy Sandbox slots (or Jobe lane places) held by a request now.\n"
            . "# TYPE prutor_engine_slots_busy gauge\n"
            . 'prutor_engine_slots_busy{lane="slots"} ' . $busy . "\n"
            . 'prutor_engine_slots_busy{lane="jobe"} ' . $jobeBusy . "\n"
            . "# HELP prutor_engine_queue_length Requests inside the engine waiting for a slot now (HAProxy's own queue is haproxy_backend_current_queue).\n"
            . "# TYPE prutor_engine_queue_length gauge\n";
        foreach ($waiting as $lane => $n) {
            $out .= 'prutor_engine_queue_length{lane="' . $lane . '"} ' . $n . "\n";
        }
        $out .= "# HELP prutor_engine_events_total The engine's event counters (gcc launches, cache hits, runs, ...).\n"
            . "# TYPE prutor_engine_events_total counter\n";
        foreach (self::all() as $n => $v) {
            $out .= 'prutor_engine_events_total{event="' . $n . '"} ' . $v . "\n";
        }
        foreach (self::FAMILIES as $family => [$type, $help]) {
            $out .= "# HELP $family $help\n# TYPE $family $type\n";
            $out .= $type === 'histogram' ? self::histogramText($family, $series) : self::counterText($family, $series);
        }
        return $out;
    }

    /** @param array<string, int> $series */
    private static function counterText(string $family, array $series): string
    {
        $lines = [];
        foreach ($series as $k => $v) {
            [$name, $labels] = explode('|', $k, 2) + [1 => ''];
            if ($name === $family) {
                $lines[] = $name . '{' . $labels . '} ' . $v;
            }
        }
        sort($lines);
        return $lines ? implode("\n", $lines) . "\n" : '';
    }

    /**
     * Buckets are stored per bucket (an observation increments one); the exposition's are
     * cumulative, as Prometheus expects.
     *
     * @param array<string, int> $series
     */
    private static function histogramText(string $family, array $series): string
    {
        $bounds = match ($family) {
            'prutor_engine_compile_seconds' => self::COMPILE_BUCKETS_S,
            'prutor_engine_run_seconds' => self::RUN_BUCKETS_S,
            default => self::WAIT_BUCKETS_S,
        };
        $byLabels = [];
        foreach ($series as $k => $v) {
            [$name, $rest] = explode('|', $k, 2) + [1 => ''];
            if (!str_starts_with($name, $family . '_')) {
                continue;
            }
            $part = substr($name, strlen($family) + 1);
            if ($part === 'bucket') {
                [$labels, $le] = explode('#', $rest, 2);
                $byLabels[$labels]['b'][$le] = $v;
            } else {
                $byLabels[$rest][$part] = $v;
            }
        }
        ksort($byLabels);
        $out = '';
        foreach ($byLabels as $labels => $h) {
            $sep = $labels === '' ? '' : ',';
            $cum = 0;
            foreach ([...$bounds, '+Inf'] as $le) {
                $cum += $h['b'][(string) $le] ?? 0;
                $out .= $family . '_bucket{' . $labels . $sep . 'le="' . $le . '"} ' . $cum . "\n";
            }
            $out .= $family . '_sum{' . $labels . '} ' . sprintf('%.6F', ($h['sum'] ?? 0) / 1e6) . "\n";
            $out .= $family . '_count{' . $labels . '} ' . ($h['count'] ?? $cum) . "\n";
        }
        return $out;
    }

    /**
     * @param array<string, string> $labels
     * @param list<float|int> $bounds
     */
    private static function observe(string $family, array $labels, float $seconds, array $bounds): void
    {
        $l = self::labels($labels);
        $le = '+Inf';
        foreach ($bounds as $b) {
            if ($seconds <= $b) {
                $le = (string) $b;
                break;
            }
        }
        self::add($family . '_bucket|' . $l . '#' . $le, 1, self::PREFIX);
        self::add($family . '_sum|' . $l, (int) round(max(0.0, $seconds) * 1e6), self::PREFIX);
        self::add($family . '_count|' . $l, 1, self::PREFIX);
    }

    /** @param array<string, string> $labels */
    private static function key(string $family, array $labels): string
    {
        return self::PREFIX . $family . '|' . self::labels($labels);
    }

    /** @param array<string, string> $labels */
    private static function labels(array $labels): string
    {
        $parts = [];
        foreach ($labels as $k => $v) {
            // label values come from closed sets; anything else is cut to a safe token
            $parts[] = $k . '="' . (preg_replace('/[^A-Za-z0-9_.+-]/', '_', substr($v, 0, 32)) ?? '') . '"';
        }
        return implode(',', $parts);
    }

    private static function add(string $key, int $by, string $prefix = ''): void
    {
        if (!function_exists('apcu_inc')) {
            return;
        }
        $key = $prefix . $key;
        apcu_inc($key, $by, $ok);
        if (!$ok && !apcu_add($key, $by)) {
            apcu_inc($key, $by); // another worker added it between the two calls
        }
    }

    /** How many of the lock files NAME<base>..NAME<base+n-1> some request holds now. */
    private static function busyLocks(Config $c, string $name, int $base, int $n): int
    {
        $busy = 0;
        for ($k = 0; $k < $n; $k++) {
            $fh = @fopen($c->engineDir . '/locks/' . $name . ($base + $k), 'c');
            if ($fh === false) {
                continue;
            }
            if (flock($fh, LOCK_EX | LOCK_NB)) {
                flock($fh, LOCK_UN);
            } else {
                $busy++;
            }
            fclose($fh);
        }
        return $busy;
    }
}
