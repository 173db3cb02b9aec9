<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Sandbox;

final class SandboxArgvTest extends TestCase
{
    private const LIMITS = ['CPU_TIME_MS' => 1500, 'WALL_TIME_MS' => 0, 'MEMORY_KB' => 65536, 'FILE_SIZE_KB' => 1024,
        'NPROC' => 16, 'NOFILE' => 32, 'OUTPUT_BYTES' => 4096];

    public function testRunArgvHasLimitsWithUnitsInOrder(): void
    {
        $a = Sandbox::argv('/x/prutor-box', 'run', '/v/box/3', self::LIMITS, 'ns', ['./prog']);
        $this->assertSame(['/x/prutor-box', 'run', '/v/box/3', '1500', '4000', '65536', '1024', '16', '32', '4096', 'ns', '-', '--', './prog'], $a);
    }

    public function testWallDefaultsToTwiceCpuPlusOneSecondAndExplicitWallWins(): void
    {
        $a = Sandbox::argv('/l', 'compile', '/b/0', ['WALL_TIME_MS' => 777] + self::LIMITS, 'plain', ['/usr/bin/gcc', 'a.c']);
        $this->assertSame('777', $a[4]);
        $this->assertSame('plain', $a[10]);
        $this->assertSame(['/usr/bin/gcc', 'a.c'], array_slice($a, 13));
    }

    public function testLimitsAreClampedToWhatTheLauncherAccepts(): void
    {
        $a = Sandbox::argv('/l', 'run', '/b/0', ['CPU_TIME_MS' => 999999, 'MEMORY_KB' => 1, 'NPROC' => 100000] + self::LIMITS, 'ns', ['./prog']);
        $this->assertSame('120000', $a[3]);
        $this->assertSame('1024', $a[5]);
        $this->assertSame('1024', $a[7]);
    }

    public function testUnknownModeIsRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Sandbox::argv('/l', 'probe', '/b/0', self::LIMITS, 'ns', ['./prog']);
    }

    public function testUnknownIsolationIsRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Sandbox::argv('/l', 'run', '/b/0', self::LIMITS, 'none', ['./prog']);
    }
}
