<?php

declare(strict_types=1);

namespace Prutor\Engine\Jobe;

use Prutor\Engine\Config;
use Prutor\Engine\Environments;
use Prutor\Engine\Events;
use Prutor\Engine\HttpError;
use Prutor\Engine\Lane;
use Prutor\Engine\Metrics;
use Prutor\Engine\Runner;
use Prutor\Engine\Telemetry;
use Prutor\Engine\Verdict;

/**
 * POST runs: one Jobe run_spec compiled (once per distinct source, flags and support
 * files: the engine's binary cache) and run in the sandbox. Limits start from Jobe's
 * defaults for the language (the environment's "jobe" block), a caller may lower or raise
 * them up to the environment's maxima: cputime above the maximum is refused with 400 as
 * Jobe does, the others are clamped. Runs are sandboxed as Jobe's are (a writable working
 * directory, exec allowed, memorylimit as the address space: a 2 GB malloc fails). Every run
 * is logged with its caller (key id or address).
 *
 * Runs share the engine with students, so they take at most ENGINE_JOBE_SLOTS of its slots
 * (Lane; the rest stay for students), and while an event is running (Events) their CPU time
 * (and so their wall time, twice it and a second) is cut to ENGINE_JOBE_EXAM_CPU_TIME_MS.
 */
final class Runs
{
    private const MAX_SOURCE_BYTES = 262144;
    private const MAX_INPUT_BYTES = 1048576;
    private const OVERLOAD_TEST = '!** TESTING OVERLOAD EXCEPTION **!';

    public const COMPILATION_ERROR = 11;
    public const RUNTIME_ERROR = 12;
    public const TIME_LIMIT = 13;
    public const SUCCESS = 15;
    public const MEMORY_LIMIT = 17;
    public const ILLEGAL_SYSCALL = 19;
    public const INTERNAL_ERROR = 20;
    public const SERVER_OVERLOAD = 21;

    public function __construct(private readonly Config $c)
    {
    }

    /**
     * @param array<string, mixed> $in the decoded body
     * @param array{label: string, address: string, space: string} $caller
     * @return array{0: int, 1: mixed, 2: array<string, string>}
     */
    public function post(array $in, array $caller): array
    {
        $t0 = hrtime(true);
        $spec = $in['run_spec'] ?? null;
        if (!is_array($spec)) {
            throw new HttpError(400, 'No run_spec attribute found in post data');
        }
        foreach (['sourcecode', 'language_id'] as $attr) {
            if (!isset($spec[$attr])) {
                throw new HttpError(400, "run_spec is missing the required attribute '$attr'");
            }
            if (!is_string($spec[$attr])) {
                throw new HttpError(400, "run_spec attribute '$attr' must be a string");
            }
        }
        $language = strtolower($spec['language_id']);
        $envs = Environments::all($this->c);
        if (!isset($envs[$language]) || !in_array($language, array_column(Languages::list($this->c), 0), true)) {
            throw new HttpError(400, "Language '" . substr($spec['language_id'], 0, 64) . "' is not known");
        }
        $env = $envs[$language];
        $params = is_array($spec['parameters'] ?? null) ? $spec['parameters'] : [];
        $limits = self::limits($this->c, $env, $params, Events::running($this->c) ? $this->c->jobeExamCpuTimeMs : null);
        $source = $spec['sourcecode'];
        if (strlen($source) > self::MAX_SOURCE_BYTES) {
            throw new HttpError(400, 'sourcecode is too long (at most ' . self::MAX_SOURCE_BYTES . ' bytes)');
        }
        $input = $spec['input'] ?? '';
        if (!is_string($input) || strlen($input) > self::MAX_INPUT_BYTES) {
            throw new HttpError(400, 'input must be a string of at most ' . self::MAX_INPUT_BYTES . ' bytes');
        }
        $sourceName = $spec['sourcefilename'] ?? '';
        if (!is_string($sourceName) || ($sourceName !== '' && !self::validFileName($sourceName))) {
            throw new HttpError(400, 'The sourcefilename for the run_spec is illegal');
        }
        $files = $this->files($spec['file_list'] ?? [], $caller['space']);
        if ($source === self::OVERLOAD_TEST) {
            return [200, self::result(self::SERVER_OVERLOAD), []];
        }
        $jobe = (array) ($env['jobe'] ?? []);
        $env['source_filename'] = $sourceName !== '' && $sourceName !== Runner::BINARY ? $sourceName
            : (string) ($jobe['source_filename'] ?? $env['source_filename'] ?? 'prog');
        foreach (['compile_args' => 'compileargs', 'link_args' => 'linkargs', 'interpreter_args' => 'interpreterargs'] as $k => $p) {
            $args = Args::split($params[$p] ?? null) ?? Args::split($jobe[$k] ?? null) ?? Args::split($env[$k] ?? []);
            $env[$k] = $args ?? [];
        }
        $runArgs = Args::split($params['runargs'] ?? null) ?? [];

        Metrics::inc('jobe');
        $runner = new Runner($this->c);
        $lane = new Lane($this->c, 'jobe', $this->c->jobeSlots);
        $cr = null;
        try {
            $lane->enter();
            $cr = $runner->compile($env, $source, $files);
            Metrics::compileSeconds($language, (bool) $cr['from_cache'], $cr['ms'] / 1000);
            if (!$cr['ok']) {
                $out = self::result($cr['internal'] ? self::INTERNAL_ERROR : self::COMPILATION_ERROR, $cr['raw']);
            } else {
                // Jobe's memorylimit bounds the address space (a 2000 MB malloc fails); the sandbox's
                // memory cgroup bounds what the whole run really uses
                $argv = ['/usr/bin/prlimit', '--as=' . ($limits['MEMORY_KB'] * 1024), '--', ...Environments::runArgv($env, Runner::BINARY, $runArgs)];
                $r = $runner->run((string) $cr['binary'], $input, $limits, $argv, $files, 'compile');
                Metrics::runSeconds($language, $r['wall_ms'] / 1000);
                $out = self::result(self::outcome($r['verdict'], $r['stderr'], $r['signal']), '', $r['stdout'], $r['stderr']);
            }
        } catch (HttpError $e) {
            if ($e->status !== 503) {
                throw $e;
            }
            $out = self::result(self::SERVER_OVERLOAD);
        } finally {
            $runner->release();
            $lane->leave();
        }
        Metrics::run('jobe', $language, (string) $out['outcome']);
        Telemetry::log($this->c, 'jobe_run', ['caller' => $caller['label'], 'address' => $caller['address'], 'language' => $language,
            'outcome' => $out['outcome'], 'from_cache' => (bool) ($cr['from_cache'] ?? false), 'cpu_limit_ms' => $limits['CPU_TIME_MS'],
            'memory_limit_kb' => $limits['MEMORY_KB'], 'ms' => (int) ((hrtime(true) - $t0) / 1_000_000)]);
        return [200, $out, $out['outcome'] === self::SERVER_OVERLOAD ? ['Retry-After' => '1'] : []];
    }

    /**
     * The run's limits: the environment's, then Jobe's defaults for the language, then the
     * caller's parameters within the environment's maxima; the CPU time at most $cpuCapMs
     * (an event running) whatever was asked.
     *
     * @param array<string, mixed> $env
     * @param array<string, mixed> $params
     * @return array<string, int>
     */
    public static function limits(Config $c, array $env, array $params, ?int $cpuCapMs = null): array
    {
        $l = Environments::limits($c, $env);
        $max = Environments::maxima($c, $env);
        $jobe = (array) ($env['jobe'] ?? []);
        $num = static fn (string $k): ?float => isset($params[$k]) && is_numeric($params[$k]) ? (float) $params[$k] : null;
        $cputime = $num('cputime');
        if ($cputime !== null && $cputime * 1000 > $max['CPU_TIME_MS']) {
            throw new HttpError(400, 'cputime exceeds maximum allowed on this Jobe server (' . intdiv($max['CPU_TIME_MS'], 1000) . ' secs)');
        }
        $want = [
            'CPU_TIME_MS' => [$cputime, 1000, $jobe['cputime_s'] ?? null],
            'MEMORY_KB' => [$num('memorylimit'), 1024, $jobe['memorylimit_mb'] ?? null],
            'NPROC' => [$num('numprocs'), 1, $jobe['numprocs'] ?? null],
            'FILE_SIZE_KB' => [$num('disklimit'), 1024, $jobe['disklimit_mb'] ?? 20],
            'OUTPUT_BYTES' => [$num('streamsize'), 1048576, $jobe['streamsize_mb'] ?? 2],
        ];
        foreach ($want as $k => [$asked, $unit, $default]) {
            // 0 (Jobe's "no limit") and absent values take the default; all are capped by the maximum
            $v = $asked !== null && $asked > 0 ? $asked : (is_numeric($default) ? (float) $default : null);
            if ($v !== null) {
                $l[$k] = max(1, min($max[$k], (int) round($v * $unit)));
            }
        }
        if ($cpuCapMs !== null) {
            $l['CPU_TIME_MS'] = min($l['CPU_TIME_MS'], $cpuCapMs);
        }
        return $l;
    }

    /**
     * Jobe's outcome for a run: as in Jobe, output on stderr makes a run a runtime error and
     * a non-zero exit code alone does not; a signal does.
     */
    public static function outcome(string $verdict, string $stderr, ?int $signal = null): int
    {
        if ($verdict === Verdict::MEMORY_LIMIT && $signal === 11) {
            return self::RUNTIME_ERROR; // a crash at the address-space or stack limit, as Jobe reports it
        }
        if ($verdict === Verdict::RUNTIME_ERROR && $signal === null) {
            $verdict = Verdict::ACCEPTED; // exited with a non-zero code
        }
        return match ($verdict) {
            Verdict::ACCEPTED, Verdict::WRONG_ANSWER => $stderr === '' ? self::SUCCESS : self::RUNTIME_ERROR,
            Verdict::RUNTIME_ERROR => self::RUNTIME_ERROR,
            Verdict::TIME_LIMIT, Verdict::OUTPUT_LIMIT => self::TIME_LIMIT,
            Verdict::MEMORY_LIMIT => self::MEMORY_LIMIT,
            Verdict::FORBIDDEN_SYSCALL => self::ILLEGAL_SYSCALL,
            Verdict::COMPILATION_ERROR => self::COMPILATION_ERROR,
            default => self::INTERNAL_ERROR,
        };
    }

    /** @return array{run_id: null, outcome: int, cmpinfo: string, stdout: string, stderr: string} */
    private static function result(int $outcome, string $cmpinfo = '', string $stdout = '', string $stderr = ''): array
    {
        return ['run_id' => null, 'outcome' => $outcome, 'cmpinfo' => self::clean($cmpinfo),
            'stdout' => self::clean($stdout), 'stderr' => self::clean($stderr)];
    }

    /**
     * Text that is not valid UTF-8 is returned as Jobe returns it: every control byte
     * (but newline, return and tab) and every byte above 0x7E as \xNN.
     */
    public static function clean(string $s): string
    {
        if (mb_check_encoding($s, 'UTF-8')) {
            return $s;
        }
        return (string) preg_replace_callback('/[^\x20-\x7E\n\r\t]/', static fn (array $m): string => sprintf('\\x%02x', ord($m[0])), $s);
    }

    /** Jobe's rule for a file name in the run directory. */
    public static function validFileName(string $name): bool
    {
        return $name !== '' && strlen($name) <= 128 && preg_match('/\A[A-Za-z0-9_][A-Za-z0-9_.\-]*\z/', $name) === 1;
    }

    /**
     * @param mixed $list file_list: [[file_id, file_name], ...]
     * @param string $space the caller's files (FileCache): another key's ids are missing here
     * @return array<string, string> contents by file name
     */
    private function files(mixed $list, string $space): array
    {
        if (!is_array($list)) {
            throw new HttpError(400, 'file_list must be a list of [file_id, file_name] pairs');
        }
        $cache = new FileCache($this->c, $space);
        $files = [];
        $missing = false;
        foreach ($list as $f) {
            if (!is_array($f) || !in_array(count($f), [2, 3], true) || !is_string($f[0] ?? null) || !is_string($f[1] ?? null)
                || !FileCache::validId($f[0]) || !self::validFileName($f[1]) || $f[1] === Runner::BINARY) {
                throw new HttpError(400, 'Invalid file specifier: ' . substr((string) json_encode($f), 0, 200));
            }
            $data = $cache->get($f[0]);
            if ($data === null) {
                $missing = true;
                continue;
            }
            $files[$f[1]] = $data;
        }
        if ($missing) {
            throw new HttpError(404, 'One or more of the specified files is missing/unavailable');
        }
        return $files;
    }
}
