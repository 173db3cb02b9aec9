<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** Maps the launcher's status to a verdict, and verdicts to Jobe outcomes. */
final class Verdict
{
    public const ACCEPTED = 'accepted';
    public const WRONG_ANSWER = 'wrong_answer';
    /** A checker gave part of a case's weight (Checker). */
    public const PARTIAL = 'partial';
    public const COMPILATION_ERROR = 'compilation_error';
    public const TIME_LIMIT = 'time_limit';
    public const MEMORY_LIMIT = 'memory_limit';
    public const OUTPUT_LIMIT = 'output_limit';
    public const RUNTIME_ERROR = 'runtime_error';
    public const FORBIDDEN_SYSCALL = 'forbidden_syscall';
    public const INTERNAL_ERROR = 'internal_error';
    public const BUSY = 'busy';

    private const SIGNALS = [
        1 => 'SIGHUP', 2 => 'SIGINT', 3 => 'SIGQUIT', 4 => 'SIGILL', 5 => 'SIGTRAP', 6 => 'SIGABRT',
        7 => 'SIGBUS', 8 => 'SIGFPE', 9 => 'SIGKILL', 10 => 'SIGUSR1', 11 => 'SIGSEGV', 12 => 'SIGUSR2',
        13 => 'SIGPIPE', 14 => 'SIGALRM', 15 => 'SIGTERM', 24 => 'SIGXCPU', 25 => 'SIGXFSZ', 31 => 'SIGSYS',
    ];

    public static function signalName(int $sig): string
    {
        return self::SIGNALS[$sig] ?? ('SIG' . $sig);
    }

    /**
     * Verdict of one run, before any output comparison (accepted = ran and exited 0).
     *
     * @param array<string, mixed> $st launcher status
     * @param array<string, int> $limits
     */
    public static function fromRun(array $st, array $limits): string
    {
        $status = (string) ($st['status'] ?? 'setup_error');
        $sig = (int) ($st['signal'] ?? 0);
        $exit = (int) ($st['exit'] ?? -1);
        $cpu = (int) ($st['cpu_ms'] ?? 0);
        $oom = (int) ($st['oom'] ?? 0) > 0;
        $peak = max((int) ($st['peak_kb'] ?? 0), (int) ($st['mem_kb'] ?? 0));
        $memLimit = (int) ($limits['MEMORY_KB'] ?? PHP_INT_MAX);
        $cpuLimit = (int) ($limits['CPU_TIME_MS'] ?? PHP_INT_MAX);
        $nearMem = $peak >= (int) ($memLimit * 0.95);
        switch ($status) {
            case 'timeout':
                return self::TIME_LIMIT;
            case 'output_limit':
                return self::OUTPUT_LIMIT;
            case 'signaled':
                if ($sig === 24) {
                    return self::TIME_LIMIT;
                }
                if ($sig === 25) {
                    return self::OUTPUT_LIMIT;
                }
                if ($sig === 31) {
                    return self::FORBIDDEN_SYSCALL;
                }
                if ($oom || $nearMem) {
                    return self::MEMORY_LIMIT;
                }
                if ($sig === 9 && $cpu >= $cpuLimit) {
                    return self::TIME_LIMIT;
                }
                return self::RUNTIME_ERROR;
            case 'exited':
                if ($oom) {
                    return self::MEMORY_LIMIT;
                }
                if ($cpu > $cpuLimit) {
                    return self::TIME_LIMIT;
                }
                return $exit === 0 ? self::ACCEPTED : self::RUNTIME_ERROR;
            default:
                return self::INTERNAL_ERROR;
        }
    }

    public static function jobeOutcome(string $verdict): int
    {
        return match ($verdict) {
            self::COMPILATION_ERROR => 11,
            self::RUNTIME_ERROR, self::OUTPUT_LIMIT => 12,
            self::TIME_LIMIT => 13,
            self::ACCEPTED, self::WRONG_ANSWER, self::PARTIAL => 15,
            self::MEMORY_LIMIT => 17,
            self::FORBIDDEN_SYSCALL => 19,
            self::BUSY => 21,
            default => 20,
        };
    }
}
