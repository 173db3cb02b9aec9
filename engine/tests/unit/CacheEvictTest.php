<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Runner;

final class CacheEvictTest extends TestCase
{
    private string $dir;

    protected function setUp(): void
    {
        $this->dir = sys_get_temp_dir() . '/prutor-evict-' . getmypid();
        @mkdir($this->dir, 0700, true);
        // ten entries of 100 bytes, the oldest used first (h0), and the cache's own files
        for ($i = 0; $i < 10; $i++) {
            $f = $this->dir . '/h' . $i . ($i % 2 ? '.err' : '.bin');
            file_put_contents($f, str_repeat('x', 100));
            touch($f, 1_000_000 + $i);
        }
        file_put_contents($this->dir . '/.lockab', '');
        file_put_contents($this->dir . '/h0.tmp123', 'a binary being written');
    }

    protected function tearDown(): void
    {
        array_map('unlink', glob($this->dir . '/{,.}[!.]*', GLOB_BRACE) ?: []);
        @rmdir($this->dir);
    }

    /** @return list<string> */
    private function left(): array
    {
        $names = array_values(array_filter((array) scandir($this->dir), static fn ($f): bool => $f !== '.' && $f !== '..'));
        sort($names);
        return $names;
    }

    public function testTheLeastRecentlyUsedGoUntilTheFileBoundHolds(): void
    {
        $this->assertSame([4, 400], Runner::evict($this->dir, 4, 1_000_000));
        $this->assertSame(['.lockab', 'h0.tmp123', 'h6.bin', 'h7.err', 'h8.bin', 'h9.err'], $this->left());
    }

    public function testTheByteBoundHoldsToo(): void
    {
        $this->assertSame([2, 200], Runner::evict($this->dir, 100, 250));
        $this->assertSame(['.lockab', 'h0.tmp123', 'h8.bin', 'h9.err'], $this->left());
    }

    public function testACacheWithinItsBoundsIsOnlyCounted(): void
    {
        $this->assertSame([10, 1000], Runner::evict($this->dir, 10, 1000));
        $this->assertCount(12, $this->left());
    }
}
