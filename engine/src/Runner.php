<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Compile once, run many: binaries are cached on disk by sha256(environment, flags,
 * code); a compile of a hash is done once even under concurrency (flock stripes), and
 * code the compiler rejected is cached too. All compiles and runs happen in a sandbox
 * slot that starts empty: the compile sees only its source, a run only the binary.
 */
final class Runner
{
    /** The compiled program's name in the working directory (what {binary} stands for). */
    public const BINARY = 'prog';

    /**
     * How gcc and g++ link: GNU gold instead of the default BFD ld, for the same program
     * (engine/README.md, Benchmarks: the link was the largest single part of a C compile,
     * gold costs less of it; the corpus test proves the programs behave as plain gcc's).
     * gold ships in Debian's binutils, which gcc needs anyway.
     */
    public const LINKER_ARGS = ['-fuse-ld=gold'];

    /**
     * The C++ system headers precompiled with the cpp environment's flags (engine/pch.sh):
     * <iostream>, <bits/stdc++.h>, <vector>, <algorithm> as a source's first include cost
     * a fraction of their parse; byte-for-byte the same program (engine/README.md, Benchmarks).
     */
    public const PCH_DIR = '/usr/local/lib/prutor-pch';

    private ?int $slot = null;
    private ?string $isolation = null;
    private Sandbox $box;

    /** @param bool $background work nobody waits for: never takes the last free slot (Slots) */
    public function __construct(private readonly Config $c, private readonly bool $background = false)
    {
        $this->box = new Sandbox($c);
    }

    public function __destruct()
    {
        $this->release();
    }

    public function release(): void
    {
        if ($this->slot !== null) {
            Slots::release($this->slot);
            $this->slot = null;
        }
    }

    private function slot(): int
    {
        if ($this->slot === null) {
            $this->slot = Slots::acquire($this->c, $this->background);
            $this->isolation = $this->box->isolation($this->slot);
        }
        return $this->slot;
    }

    /**
     * @param array<string, mixed> $env
     * @param array<string, string> $files support files by name, present at compile and run
     */
    public static function hash(array $env, string $code, array $files = []): string
    {
        ksort($files);
        return hash('sha256', (string) $env['slug'] . "\0" . json_encode(self::compileCommand($env, self::sourceName($env, $code)))
            . "\0" . $code . ($files ? "\0" . json_encode(array_map(static fn (string $f): string => hash('sha256', $f), $files)) : ''));
    }

    /**
     * The source file's name: the environment's, or where it has "source_filename_from"
     * (patterns tried in turn, whose first group names the file: Java's public class with a
     * main method, as Jobe names a Java source, then any public type, as a student's class
     * called by an instructor's main) that name plus the source extension from the first
     * pattern that matches exactly once.
     *
     * @param array<string, mixed> $env
     */
    public static function sourceName(array $env, string $code): string
    {
        foreach ((array) ($env['source_filename_from'] ?? []) as $from) {
            if (is_string($from) && preg_match_all('/' . str_replace('/', '\\/', $from) . '/s', $code, $m) === 1) {
                return $m[1][0] . (string) ($env['source_ext'] ?? '');
            }
        }
        return (string) ($env['source_filename'] ?? 'main' . (string) ($env['source_ext'] ?? '.c'));
    }

    /** @param array<string, string> $files */
    private static function putFiles(string $dir, array $files): void
    {
        foreach ($files as $name => $contents) {
            $path = $dir . '/' . basename((string) $name);
            @unlink($path); // never write through a hard link into the binary cache
            file_put_contents($path, $contents);
        }
    }

    /**
     * @param array<string, mixed> $env
     * @param array<string, string> $files support files by name (the Jobe API's file_list)
     * @return array{ok: bool, raw: string, messages: list<array<string, mixed>>, from_cache: bool, hash: string, binary: ?string, ms: int, internal: bool}
     */
    public function compile(array $env, string $code, array $files = []): array
    {
        $t0 = hrtime(true);
        $h = self::hash($env, $code, $files);
        $base = $this->c->cacheDir . '/' . $h;
        $res = $this->cached($base, $h, $t0);
        if ($res !== null) {
            Metrics::inc('cache_hit');
            return $res;
        }
        $slot = $this->slot();
        $lock = fopen($this->c->cacheDir . '/.lock' . substr($h, 0, 2), 'c');
        if ($lock === false) {
            throw new HttpError(500, 'the engine cannot lock its binary cache');
        }
        flock($lock, LOCK_EX);
        try {
            $res = $this->cached($base, $h, $t0);
            if ($res !== null) {
                Metrics::inc('cache_wait_hit');
                return $res;
            }
            $cmd = $this->placeSource($slot, $env, $code, $files);
            Metrics::inc('gcc');
            $r = $this->box->exec($slot, 'compile', $this->compileLimits($env), $cmd, '', (string) $this->isolation);
            return $this->compiled($r['status'], trim($r['stderr'] . ($r['stdout'] !== '' ? "\n" . $r['stdout'] : '')), $slot, $base, $h, $t0);
        } finally {
            flock($lock, LOCK_UN);
            fclose($lock);
        }
    }

    /**
     * A fresh compile of code and one run of its binary with input, in one sandbox launch
     * where the sandbox can (Sandbox::execCompileRun), else as compile() and run(); a cached
     * binary is only run. The run is null when the code does not compile.
     *
     * @param array<string, mixed> $env
     * @param array<string, int> $limits the run's
     * @param list<string> $argv the run's command (Environments::runArgv)
     * @param ?Meanwhile $meanwhile the request's own work, done during the compile-run's launch
     *        or the cached binary's run where there is one (the caller invokes it afterwards too)
     * @param array<string, string> $files the problem's support files (ProblemFiles)
     * @return array{0: array{ok: bool, raw: string, messages: list<array<string, mixed>>, from_cache: bool, hash: string, binary: ?string, ms: int, internal: bool}, 1: ?array<string, mixed>}
     */
    public function compileAndRun(array $env, string $code, string $input, array $limits, array $argv, ?Meanwhile $meanwhile = null, array $files = []): array
    {
        $t0 = hrtime(true);
        $h = self::hash($env, $code, $files);
        $base = $this->c->cacheDir . '/' . $h;
        $fresh = !is_file($base . '.bin') && !is_file($base . '.err');
        $slot = $fresh ? $this->slot() : null;
        // the combined launch gives the run a /box with the binary only: support files need two
        if ($slot !== null && $this->isolation === 'ns' && $files === []) {
            $lock = fopen($this->c->cacheDir . '/.lock' . substr($h, 0, 2), 'c');
            if ($lock === false) {
                throw new HttpError(500, 'the engine cannot lock its binary cache');
            }
            flock($lock, LOCK_EX);
            try {
                if ($this->cached($base, $h, $t0) === null) {
                    $cmd = $this->placeSource($slot, $env, $code, []);
                    $r = $this->box->execCompileRun($slot, $this->compileLimits($env), $cmd, $limits,
                        Environments::sizeArgv($argv, $limits, $this->memoryCgroup($slot)), $input, $meanwhile);
                    if ($r !== null) {
                        Metrics::inc('gcc');
                        Metrics::inc('compile_run');
                        $c = $r['status']['compile'];
                        $cr = $this->compiled($c, trim($r['compile_output']), $slot, $base, $h, $t0);
                        if (!$cr['ok']) {
                            return [$cr, null];
                        }
                        Metrics::inc('run');
                        return [$cr, self::runResult($r, $limits)];
                    }
                }
            } finally {
                flock($lock, LOCK_UN);
                fclose($lock);
            }
        }
        $cr = $this->compile($env, $code, $files);
        return [$cr, $cr['ok'] ? $this->run((string) $cr['binary'], $input, $limits, $argv, self::runFiles($env, $files), meanwhile: $meanwhile) : null];
    }

    /**
     * The support files a run sees: all but the sources compiled into the program (the
     * instructor's main.c is in the binary; a data file or a Python module is read at run time).
     *
     * @param array<string, mixed> $env
     * @param array<string, string> $files
     * @return array<string, string>
     */
    public static function runFiles(array $env, array $files): array
    {
        if (($env['several_sources'] ?? false) !== true) {
            return $files;
        }
        return array_diff_key($files, array_flip(Environments::moreSources($env, $files)));
    }

    /** Whether the sandbox's memory cgroup binds a run here (else only RLIMIT_AS does). */
    private function memoryCgroup(int $slot): bool
    {
        return in_array($this->box->cgroups($slot), ['v1', 'v2'], true);
    }

    /**
     * Empties the slot, writes the source (and support files) and returns the compile command.
     *
     * @param array<string, mixed> $env
     * @param array<string, string> $files
     * @return list<string>
     */
    private function placeSource(int $slot, array $env, string $code, array $files): array
    {
        $this->box->clean($slot);
        $wd = $this->box->workdir($slot);
        $src = self::sourceName($env, $code);
        unset($files[$src]); // the student's file is the student's, whatever a support file is called
        self::putFiles($wd, $files);
        file_put_contents($wd . '/' . $src, $code);
        return self::compileCommand($env, $src, Environments::moreSources($env, $files));
    }

    /**
     * The compile command the sandbox runs: the environment's line with its program as an
     * absolute path, for gcc and g++ LINKER_ARGS after the program's name, for g++ PCH_DIR
     * first on the include path (in the cache's key too, so a change of either never serves
     * a binary built the old way).
     *
     * @param array<string, mixed> $env
     * @param list<string> $moreSources
     * @return list<string>
     */
    public static function compileCommand(array $env, string $src, array $moreSources = []): array
    {
        $cmd = Environments::compileArgv($env, $src, self::BINARY, $moreSources);
        if ($cmd[0][0] !== '/') {
            $cmd[0] = '/usr/bin/' . $cmd[0];
        }
        $compiler = basename($cmd[0]);
        if (in_array($compiler, ['gcc', 'g++', 'cc', 'c++'], true)) {
            array_splice($cmd, 1, 0, self::LINKER_ARGS);
        }
        if (in_array($compiler, ['g++', 'c++'], true)) {
            // first on the include path: g++ takes <iostream> from iostream.gch there when it
            // is valid for this compile, else reads the real header as without it
            array_splice($cmd, 1, 0, ['-I', self::PCH_DIR]);
        }
        return $cmd;
    }

    /**
     * @param array<string, mixed> $env
     * @return array<string, int>
     */
    private function compileLimits(array $env): array
    {
        $limits = $this->c->compileLimits;
        $el = Environments::envLimits($env);
        if (isset($el['COMPILE_CPU_TIME_MS'])) {
            $limits['CPU_TIME_MS'] = $el['COMPILE_CPU_TIME_MS'];
        }
        return $limits;
    }

    /**
     * The compile's verdict from the launcher's status and the compiler's output; caches
     * the binary (or the compiler's rejection). Called with the cache stripe locked.
     *
     * @param array<string, mixed> $st
     * @return array{ok: bool, raw: string, messages: list<array<string, mixed>>, from_cache: bool, hash: string, binary: ?string, ms: int, internal: bool}
     */
    private function compiled(array $st, string $raw, int $slot, string $base, string $h, int $t0): array
    {
        $wd = $this->box->workdir($slot);
        $status = (string) ($st['status'] ?? '');
        $ok = $status === 'exited' && (int) $st['exit'] === 0 && is_file($wd . '/prog');
        // only the compiler's own verdict on the code is cached: a compile stopped for
        // time, memory or output may pass on a quieter machine
        // (gcc's driver exits 1 when the kernel kills cc1 for memory: look at the cgroup too)
        $stopped = (int) ($st['oom'] ?? 0) > 0 || (int) ($st['cpu_limit'] ?? 0) > 0
            || str_contains($raw, 'internal compiler error');
        // the sandbox itself failing to start the compiler is not a verdict on the code
        $internal = str_starts_with($raw, 'bwrap:') || str_starts_with($raw, 'prutor-run:');
        $rejected = $status === 'exited' && (int) $st['exit'] !== 0 && !$stopped && !$internal;
        $internal = $internal || (!$ok && !in_array($status, ['exited', 'timeout', 'output_limit', 'signaled'], true));
        if ($ok) {
            $tmp = $base . '.tmp' . getmypid();
            copy($wd . '/prog', $tmp);
            chmod($tmp, 0755);
            rename($tmp, $base . '.bin');
            self::cache($this->c)->inserted(1, (int) filesize($base . '.bin'));
        } elseif ($rejected) {
            file_put_contents($base . '.err', $raw);
            self::cache($this->c)->inserted(1, strlen($raw));
        } elseif (!$internal) {
            $why = match (true) {
                $status === 'timeout' => 'compilation took too long',
                $status === 'output_limit' => 'the compiler wrote too much output',
                default => 'the compiler ran out of memory or was stopped',
            };
            $raw .= ($raw === '' ? '' : "\n") . $why;
        }
        return [
            'ok' => $ok,
            'raw' => $internal ? 'internal error: ' . (string) ($st['message'] ?? 'the sandbox failed') : $raw,
            'messages' => GccMessages::parse($raw),
            'from_cache' => false,
            'hash' => $h,
            'binary' => $ok ? $base . '.bin' : null,
            'ms' => (int) ((hrtime(true) - $t0) / 1_000_000),
            'internal' => $internal,
        ];
    }

    /** @return ?array{ok: bool, raw: string, messages: list<array<string, mixed>>, from_cache: bool, hash: string, binary: ?string, ms: int, internal: bool} */
    private function cached(string $base, string $h, int $t0): ?array
    {
        if (is_file($base . '.bin')) {
            @touch($base . '.bin');
            return ['ok' => true, 'raw' => '', 'messages' => [], 'from_cache' => true, 'hash' => $h,
                'binary' => $base . '.bin', 'ms' => (int) ((hrtime(true) - $t0) / 1_000_000), 'internal' => false];
        }
        if (is_file($base . '.err')) {
            $raw = (string) file_get_contents($base . '.err');
            return ['ok' => false, 'raw' => $raw, 'messages' => GccMessages::parse($raw), 'from_cache' => true,
                'hash' => $h, 'binary' => null, 'ms' => (int) ((hrtime(true) - $t0) / 1_000_000), 'internal' => false];
        }
        return null;
    }

    /** The compile cache: binaries (.bin) and compiler rejections (.err) by hash. */
    private static function cache(Config $c): LruFolder
    {
        return new LruFolder($c->cacheDir, 'cache', $c->cacheMaxFiles, $c->cacheMaxBytes, self::isCacheEntry(...));
    }

    /** The compile cache's entries are its .bin and .err files, not its stripe locks or binaries being copied in. */
    public static function isCacheEntry(string $name): bool
    {
        return $name[0] !== '.' && (str_ends_with($name, '.bin') || str_ends_with($name, '.err'));
    }

    /**
     * Runs a cached binary once with the given stdin.
     *
     * @param array<string, int> $limits
     * @param list<string> $argv the command (Environments::runArgv), the binary named "prog"
     * @param array<string, string> $files support files by name
     * @param string $sandboxMode "run" (a private tmpfs /box with read-only files, exec once) or, for
     *        the Jobe API, "compile" (the slot itself as /box, exec allowed, as Jobe's runs are)
     * @param ?Meanwhile $meanwhile the request's own work, done while the run's launch works
     * @return array{verdict: string, stdout: string, stderr: string, exit_code: ?int, signal: ?int, signal_name: ?string, time_ms: int, memory_kb: int, wall_ms: int}
     */
    public function run(string $binary, string $input, array $limits, array $argv = ['./prog'], array $files = [], string $sandboxMode = 'run', ?Meanwhile $meanwhile = null): array
    {
        $slot = $this->slot();
        // the slot holds nothing but the binary: the launcher shows the run exactly the
        // files in it, on a private /box, and empties the slot afterwards
        $this->box->clean($slot);
        self::putFiles($this->box->workdir($slot), $files);
        $prog = $this->box->workdir($slot) . '/prog';
        if (!@link($binary, $prog)) {
            copy($binary, $prog);
            chmod($prog, 0755);
        }
        Metrics::inc('run');
        $argv = Environments::sizeArgv($argv, $limits, $this->memoryCgroup($slot));
        return self::runResult($this->box->exec($slot, $sandboxMode, $limits, $argv, $input, (string) $this->isolation, $meanwhile), $limits);
    }

    /**
     * @param array{status: array<string, mixed>, stdout: string, stderr: string} $r the launcher's answer
     * @param array<string, int> $limits
     * @return array{verdict: string, stdout: string, stderr: string, exit_code: ?int, signal: ?int, signal_name: ?string, time_ms: int, memory_kb: int, wall_ms: int}
     */
    private static function runResult(array $r, array $limits): array
    {
        $st = $r['status'];
        $verdict = Verdict::fromRun($st, $limits);
        $sig = (int) ($st['signal'] ?? 0);
        $exit = (int) ($st['exit'] ?? -1);
        return [
            'verdict' => $verdict,
            'stdout' => $r['stdout'],
            'stderr' => $verdict === Verdict::INTERNAL_ERROR ? (string) ($st['message'] ?? 'the sandbox failed') : $r['stderr'],
            'exit_code' => $sig === 0 && $exit >= 0 ? $exit : null,
            'signal' => $sig > 0 ? $sig : null,
            'signal_name' => $sig > 0 ? Verdict::signalName($sig) : null,
            'time_ms' => (int) ($st['cpu_ms'] ?? 0),
            'memory_kb' => max(0, (int) ($st['peak_kb'] ?? 0), (int) ($st['mem_kb'] ?? 0)),
            'wall_ms' => (int) ($st['wall_ms'] ?? 0),
        ];
    }
}
