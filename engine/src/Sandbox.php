<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Builds the argv of the privileged launcher (sandbox/src/prutor-box.c) and runs it.
 * stdin, stdout and stderr are files the engine opens itself (no pipes to deadlock on);
 * the launcher reports its JSON status on fd 3.
 */
final class Sandbox
{
    /** No isolation this host may use: namespaces fail and plain mode is not allowed. */
    public const UNAVAILABLE = 'none';

    public function __construct(private readonly Config $c)
    {
    }

    /**
     * @param array<string, int> $limits CPU_TIME_MS, WALL_TIME_MS, MEMORY_KB, FILE_SIZE_KB, NPROC, NOFILE, OUTPUT_BYTES
     * @param list<string> $cmd
     * @return list<string>
     */
    public static function argv(string $launcher, string $mode, string $workdir, array $limits, string $isolation, array $cmd): array
    {
        if (!in_array($mode, ['compile', 'run'], true)) {
            throw new \InvalidArgumentException('mode');
        }
        if (!in_array($isolation, ['ns', 'plain'], true)) {
            throw new \InvalidArgumentException('isolation');
        }
        return [$launcher, $mode, $workdir, ...self::limitArgs($limits), $isolation, '-', '--', ...$cmd];
    }

    /**
     * The launcher's seven limits, in its order and ranges.
     *
     * @param array<string, int> $limits
     * @return list<string>
     */
    private static function limitArgs(array $limits): array
    {
        $cpu = max(10, (int) $limits['CPU_TIME_MS']);
        $wall = (int) ($limits['WALL_TIME_MS'] ?? 0);
        if ($wall <= 0) {
            $wall = $cpu * 2 + 1000;
        }
        $n = static fn (string $k, int $min, int $max): string => (string) max($min, min($max, (int) $limits[$k]));
        return [
            (string) min($cpu, 120000),
            (string) max(10, min($wall, 300000)),
            $n('MEMORY_KB', 1024, 8388608),
            $n('FILE_SIZE_KB', 0, 1048576),
            $n('NPROC', 1, 1024),
            $n('NOFILE', 4, 4096),
            $n('OUTPUT_BYTES', 0, 67108864),
        ];
    }

    /**
     * The launcher's argv for a compile and its run in one launch ("compile-run").
     *
     * @param array<string, int> $compileLimits
     * @param list<string> $compileCmd
     * @param array<string, int> $runLimits
     * @param list<string> $runCmd
     * @return list<string>
     */
    public static function compileRunArgv(string $launcher, string $workdir, array $compileLimits, array $compileCmd, array $runLimits, array $runCmd): array
    {
        return [$launcher, 'compile-run', $workdir, ...self::limitArgs($compileLimits), 'ns', '-', '--', ...$compileCmd,
            '--', ...self::limitArgs($runLimits), ...$runCmd];
    }

    public function workdir(int $slot): string
    {
        return $this->c->boxRoot . '/' . $slot;
    }

    /**
     * @param array<string, int> $limits
     * @param list<string> $cmd
     * @return array{status: array<string, mixed>, stdout: string, stderr: string, compile_output: string}
     */
    public function exec(int $slot, string $mode, array $limits, array $cmd, string $stdin, string $isolation, ?Meanwhile $meanwhile = null): array
    {
        if ($isolation === self::UNAVAILABLE) {
            throw new HttpError(503, 'the sandbox cannot isolate programs on this host (namespaces are unavailable and '
                . 'plain isolation is not allowed): tell the administrator', ['Retry-After' => '30']);
        }
        return $this->launch($slot, self::argv($this->c->launcher, $mode, $this->workdir($slot), $limits, $isolation, $cmd), $stdin, false, $meanwhile);
    }

    /**
     * A compile and, if it succeeds, one run of its binary in one launch: the run gets a
     * fresh /box holding only the binary, as a run step would (sandbox/README.md). Only
     * in the launcher's own namespaces with cgroups; elsewhere null, and the caller
     * compiles and runs in two steps.
     *
     * @param array<string, int> $compileLimits
     * @param list<string> $compileCmd
     * @param array<string, int> $runLimits
     * @param list<string> $runCmd
     * @return ?array{status: array<string, mixed>, stdout: string, stderr: string, compile_output: string}
     *         status is the run's, with the compile's under "compile"; "not_run" when the compile failed
     */
    public function execCompileRun(int $slot, array $compileLimits, array $compileCmd, array $runLimits, array $runCmd, string $stdin, ?Meanwhile $meanwhile = null): ?array
    {
        if (apcu_fetch('sandbox:compile-run') === 'unsupported') {
            return null;
        }
        $argv = self::compileRunArgv($this->c->launcher, $this->workdir($slot), $compileLimits, $compileCmd, $runLimits, $runCmd);
        $r = $this->launch($slot, $argv, $stdin, true, $meanwhile);
        if (($r['status']['status'] ?? '') === 'unsupported') {
            // asked again after a while: a restart of the host may bring what was missing
            apcu_store('sandbox:compile-run', 'unsupported', 600);
            error_log('prutor-engine: the sandbox compiles and runs in two launches here: ' . (string) ($r['status']['message'] ?? ''));
            return null;
        }
        if (!is_array($r['status']['compile'] ?? null)) {
            $r['status']['compile'] = ['status' => 'setup_error', 'message' => (string) ($r['status']['message'] ?? 'the sandbox failed')];
        }
        return $r;
    }

    /**
     * Runs the launcher with stdin, stdout, stderr (and, for compile-run, the compiler's
     * output on fd 4) in the slot's io files; $meanwhile runs while the launcher works.
     * Whatever $meanwhile throws is thrown once the launcher has finished (and so has left
     * the slot clean): the slot is never given back with a launch still running in it.
     *
     * @param list<string> $argv
     * @return array{status: array<string, mixed>, stdout: string, stderr: string, compile_output: string}
     */
    private function launch(int $slot, array $argv, string $stdin, bool $compileOutput = false, ?Meanwhile $meanwhile = null): array
    {
        $io = $this->c->engineDir . '/io/' . $slot;
        file_put_contents($io . '.in', $stdin);
        $fds = [
            0 => ['file', $io . '.in', 'r'],
            1 => ['file', $io . '.out', 'w'],
            2 => ['file', $io . '.err', 'w'],
            3 => ['pipe', 'w'],
        ];
        if ($compileOutput) {
            $fds[4] = ['file', $io . '.cout', 'w'];
        }
        $p = proc_open($argv, $fds, $pipes, null, ['PATH' => '/usr/bin:/bin']);
        if (!is_resource($p)) {
            return ['status' => ['status' => 'setup_error', 'message' => 'cannot start the sandbox'], 'stdout' => '', 'stderr' => '', 'compile_output' => ''];
        }
        $failed = null;
        try {
            $meanwhile?->__invoke();
        } catch (\Throwable $e) {
            $failed = $e;
        }
        $json = (string) stream_get_contents($pipes[3]);
        fclose($pipes[3]);
        proc_close($p);
        if ($failed !== null) {
            throw $failed;
        }
        $st = json_decode(trim($json), true);
        if (!is_array($st)) {
            $st = ['status' => 'setup_error', 'message' => 'no status from the sandbox'];
        }
        return [
            'status' => $st,
            'stdout' => (string) @file_get_contents($io . '.out'),
            'stderr' => (string) @file_get_contents($io . '.err'),
            'compile_output' => $compileOutput ? (string) @file_get_contents($io . '.cout') : '',
        ];
    }

    /**
     * Empties the slot's dir before a step. The launcher empties it after every step, so
     * this finds at most the last compile's binary; anything the engine cannot remove
     * (a step cut short) is left to the launcher's own clean-up, as root.
     */
    public function clean(int $slot): void
    {
        $dir = $this->workdir($slot);
        $left = false;
        foreach ((array) @scandir($dir) as $f) {
            if ($f !== '.' && $f !== '..' && is_string($f) && !@unlink($dir . '/' . $f)) {
                $left = true;
            }
        }
        if ($left) {
            $p = proc_open([$this->c->launcher, 'clean', $dir], [
                0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w'],
                3 => ['file', '/dev/null', 'w'],
            ], $pipes);
            if (is_resource($p)) {
                proc_close($p);
            }
        }
    }

    /**
     * The isolation this host gives: "ns" when the sandbox's namespaces work (the launcher's own or bubblewrap's), "plain" only if
     * the admin opted in (SANDBOX_ALLOW_PLAIN=1), else UNAVAILABLE. Probing runs in the
     * slot, so the caller must hold it; the answer is cached per host.
     */
    public function isolation(int $slot): string
    {
        $mode = $this->knownIsolation();
        if ($mode !== null) {
            return $mode;
        }
        $st = $this->probe($slot);
        $nsWorks = is_array($st) && ($st['status'] ?? '') === 'ok';
        $mode = $nsWorks ? 'ns' : ($this->c->allowPlain ? 'plain' : self::UNAVAILABLE);
        // A failed probe may be passing (a restart killed it, the host was swamped): it
        // is asked again within seconds, not trusted for ten minutes of refusals.
        apcu_store('sandbox:isolation', $mode, $mode === self::UNAVAILABLE ? 5 : 600);
        return $mode;
    }

    /**
     * The cgroups the launcher binds each step with: "v2", "v1" or "none" (sandbox/README.md),
     * from a probe in the slot (which the caller must hold); cached per host.
     */
    public function cgroups(int $slot): string
    {
        $known = apcu_fetch('sandbox:cgroups');
        if (is_string($known)) {
            return $known;
        }
        $st = $this->probe($slot);
        return is_array($st) && isset($st['cgroups']) ? (string) $st['cgroups'] : 'unknown';
    }

    /**
     * The launcher's answer to a probe in the slot (null if none); remembers its cgroups.
     *
     * @return array<string, mixed>|null
     */
    private function probe(int $slot): ?array
    {
        $p = proc_open([$this->c->launcher, 'probe', $this->workdir($slot)], [
            0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w'],
            3 => ['pipe', 'w'],
        ], $pipes);
        $out = '';
        if (is_resource($p)) {
            $out = (string) stream_get_contents($pipes[3]);
            fclose($pipes[3]);
            proc_close($p);
        }
        $st = json_decode(trim($out), true);
        if (!is_array($st)) {
            return null;
        }
        if (isset($st['cgroups'])) {
            apcu_store('sandbox:cgroups', (string) $st['cgroups'], 600);
        }
        return $st;
    }

    /** The isolation when it is configured or already probed, without probing. */
    public function knownIsolation(): ?string
    {
        if ($this->c->isolation === 'ns') {
            return 'ns';
        }
        if ($this->c->isolation === 'plain') {
            return $this->c->allowPlain ? 'plain' : self::UNAVAILABLE;
        }
        $mode = apcu_fetch('sandbox:isolation');
        return is_string($mode) ? $mode : null;
    }
}
