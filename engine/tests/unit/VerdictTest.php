<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Verdict;

final class VerdictTest extends TestCase
{
    private const L = ['CPU_TIME_MS' => 1000, 'MEMORY_KB' => 65536];

    /** @return array<string, array{array<string, mixed>, string}> */
    public static function cases(): array
    {
        return [
            'clean exit' => [['status' => 'exited', 'exit' => 0, 'cpu_ms' => 3], Verdict::ACCEPTED],
            'non-zero exit' => [['status' => 'exited', 'exit' => 3, 'cpu_ms' => 3], Verdict::RUNTIME_ERROR],
            'SIGXCPU' => [['status' => 'signaled', 'signal' => 24, 'cpu_ms' => 1001], Verdict::TIME_LIMIT],
            'wall clock' => [['status' => 'timeout', 'cpu_ms' => 1], Verdict::TIME_LIMIT],
            'SIGKILL at cpu hard limit' => [['status' => 'signaled', 'signal' => 9, 'cpu_ms' => 2000], Verdict::TIME_LIMIT],
            'cgroup oom kill' => [['status' => 'signaled', 'signal' => 9, 'oom' => 1, 'cpu_ms' => 50], Verdict::MEMORY_LIMIT],
            'segv near memory limit' => [['status' => 'signaled', 'signal' => 11, 'peak_kb' => 65000], Verdict::MEMORY_LIMIT],
            'plain segv' => [['status' => 'signaled', 'signal' => 11, 'peak_kb' => 900], Verdict::RUNTIME_ERROR],
            'SIGFPE' => [['status' => 'signaled', 'signal' => 8], Verdict::RUNTIME_ERROR],
            'SIGSYS from seccomp' => [['status' => 'signaled', 'signal' => 31], Verdict::FORBIDDEN_SYSCALL],
            'SIGXFSZ' => [['status' => 'signaled', 'signal' => 25], Verdict::OUTPUT_LIMIT],
            'output cap' => [['status' => 'output_limit'], Verdict::OUTPUT_LIMIT],
            'launcher refused' => [['status' => 'setup_error', 'message' => 'x'], Verdict::INTERNAL_ERROR],
            'cpu over limit, exited' => [['status' => 'exited', 'exit' => 0, 'cpu_ms' => 1500], Verdict::TIME_LIMIT],
        ];
    }

    /**
     * @dataProvider cases
     * @param array<string, mixed> $st
     */
    public function testLauncherStatusMapsToVerdict(array $st, string $verdict): void
    {
        $this->assertSame($verdict, Verdict::fromRun($st, self::L));
    }

    public function testJobeOutcomes(): void
    {
        $this->assertSame(15, Verdict::jobeOutcome(Verdict::ACCEPTED));
        $this->assertSame(11, Verdict::jobeOutcome(Verdict::COMPILATION_ERROR));
        $this->assertSame(12, Verdict::jobeOutcome(Verdict::RUNTIME_ERROR));
        $this->assertSame(13, Verdict::jobeOutcome(Verdict::TIME_LIMIT));
        $this->assertSame(17, Verdict::jobeOutcome(Verdict::MEMORY_LIMIT));
        $this->assertSame(19, Verdict::jobeOutcome(Verdict::FORBIDDEN_SYSCALL));
        $this->assertSame(20, Verdict::jobeOutcome(Verdict::INTERNAL_ERROR));
        $this->assertSame(21, Verdict::jobeOutcome(Verdict::BUSY));
        $this->assertSame('SIGSEGV', Verdict::signalName(11));
    }
}
