<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\LruFolder;
use Prutor\Engine\Runner;

final class LruFolderTest extends TestCase
{
    private string $dir;
    private string $key;

    protected function setUp(): void
    {
        $this->dir = sys_get_temp_dir() . '/prutor-evict-' . getmypid();
        $this->key = 'test-lru-' . getmypid();
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
        if (function_exists('apcu_delete')) {
            apcu_delete([$this->key . ':files', $this->key . ':bytes', $this->key . ':evicting']);
        }
    }

    /** This test's folder under the compile cache's rule of what is an entry. */
    private function cache(int $maxFiles, int $maxBytes): LruFolder
    {
        return new LruFolder($this->dir, $this->key, $maxFiles, $maxBytes, Runner::isCacheEntry(...));
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
        $this->assertSame([4, 400], $this->cache(4, 1_000_000)->evict(4, 1_000_000));
        $this->assertSame(['.lockab', 'h0.tmp123', 'h6.bin', 'h7.err', 'h8.bin', 'h9.err'], $this->left());
    }

    public function testTheByteBoundHoldsToo(): void
    {
        $this->assertSame([2, 200], $this->cache(100, 250)->evict(100, 250));
        $this->assertSame(['.lockab', 'h0.tmp123', 'h8.bin', 'h9.err'], $this->left());
    }

    public function testACacheWithinItsBoundsIsOnlyCounted(): void
    {
        $this->assertSame([10, 1000], $this->cache(10, 1000)->evict(10, 1000));
        $this->assertCount(12, $this->left());
    }

    /** Inserts within the bounds never look at the folder; the one past a bound evicts to EVICT_TO of them. */
    public function testAnInsertPastABoundEvictsDownToNinetyPercentOnce(): void
    {
        $this->requireApcu();
        $cache = $this->cache(20, 1_000_000);
        apcu_store($this->key . ':files', 10);
        apcu_store($this->key . ':bytes', 1000);
        for ($i = 10; $i < 20; $i++) { // up to the bound: counted, nothing removed
            $this->put($i);
            $cache->inserted(1, 100);
        }
        $this->assertCount(22, $this->left());
        $this->put(20); // the 21st entry: past the bound, down to 18 (90% of 20), oldest first
        $cache->inserted(1, 100);
        $this->assertSame(18, apcu_fetch($this->key . ':files'));
        $this->assertSame(1800, apcu_fetch($this->key . ':bytes'));
        $this->assertNotContains('h2.bin', $this->left());
        $this->assertContains('h3.err', $this->left());
        $this->assertContains('h20.bin', $this->left());
        $this->assertContains('h0.tmp123', $this->left());
        $cache->inserted(0, 50); // a replaced entry, 50 bytes larger: one entry fewer than counted
        $this->assertSame(18, apcu_fetch($this->key . ':files'));
        $this->assertCount(20, $this->left());
    }

    public function testLostTotalsAreRecountedAndOnlyWhatIsBeyondTheBoundsGoes(): void
    {
        $this->requireApcu();
        $this->put(10);
        $this->cache(10, 1_000_000)->inserted(1, 100); // no totals in APCu: a recount, 11 entries, one goes
        $this->assertSame(10, apcu_fetch($this->key . ':files'));
        $this->assertNotContains('h0.bin', $this->left());
        $this->assertContains('h1.err', $this->left());
    }

    public function testAnotherWorkersEvictionIsNotRepeated(): void
    {
        $this->requireApcu();
        apcu_store($this->key . ':files', 10);
        apcu_store($this->key . ':bytes', 1000);
        apcu_add($this->key . ':evicting', 1, 60);
        $this->put(10);
        $this->cache(5, 1_000_000)->inserted(1, 100);
        $this->assertCount(13, $this->left());
        $this->assertSame(11, apcu_fetch($this->key . ':files'));
    }

    /** The shared totals live in APCu: without it in the CLI these tests say so (skipped) */
    private function requireApcu(): void
    {
        if (!function_exists('apcu_enabled') || !apcu_enabled()) {
            $this->markTestSkipped('APCu is not enabled for the CLI (engine/test.sh enables it)');
        }
    }

    private function put(int $i): void
    {
        $f = $this->dir . '/h' . $i . ($i % 2 ? '.err' : '.bin');
        file_put_contents($f, str_repeat('x', 100));
        touch($f, 1_000_000 + $i);
    }
}
