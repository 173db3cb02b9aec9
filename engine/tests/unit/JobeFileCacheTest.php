<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\Jobe\FileCache;

/** The Jobe API's support files: bounded in number as in bytes, least recently used first out, by shared totals. */
final class JobeFileCacheTest extends TestCase
{
    private string $var;

    protected function setUp(): void
    {
        if (!function_exists('apcu_enabled') || !apcu_enabled()) {
            $this->markTestSkipped('APCu is not enabled for the CLI (engine/test.sh enables it)');
        }
        $this->var = sys_get_temp_dir() . '/prutor-jobe-files-' . getmypid();
        apcu_delete(['jobe-files:files', 'jobe-files:bytes', 'jobe-files:evicting']);
    }

    protected function tearDown(): void
    {
        array_map('unlink', glob($this->var . '/jobe-files/{,.}[!.]*', GLOB_BRACE) ?: []);
        @rmdir($this->var . '/jobe-files');
        @rmdir($this->var);
    }

    private const SPACE = 'k0123456789ab';

    private function cache(int $maxFiles, int $maxBytes, string $space = self::SPACE): FileCache
    {
        return new FileCache(Config::fromEnv(['ENGINE_VAR' => $this->var,
            'ENGINE_JOBE_FILES_MAX_FILES' => (string) $maxFiles, 'ENGINE_JOBE_FILES_MAX_BYTES' => (string) $maxBytes]), $space);
    }

    /** @return list<string> the ids kept in the space SPACE */
    private function kept(): array
    {
        $names = [];
        foreach ((array) scandir($this->var . '/jobe-files') as $f) {
            if (str_starts_with((string) $f, self::SPACE . '-')) {
                $names[] = substr((string) $f, strlen(self::SPACE) + 1);
            }
        }
        sort($names);
        return $names;
    }

    private function file(string $id): string
    {
        return $this->var . '/jobe-files/' . self::SPACE . '-' . $id;
    }

    public function testEachKeyHasItsOwnFiles(): void
    {
        $a = $this->cache(100, 1_000_000, 'kaaaaaaaaaaaa');
        $b = $this->cache(100, 1_000_000, 'kbbbbbbbbbbbb');
        $a->put('sharedid1', base64_encode('from A'));
        $this->assertTrue($a->has('sharedid1'));
        $this->assertFalse($b->has('sharedid1'), "B does not see A's file");
        $this->assertNull($b->get('sharedid1'), "nor can B read it in a run");
        $b->put('sharedid1', base64_encode('from B'));
        $this->assertSame('from A', $a->get('sharedid1'), "B's PUT of the same id does not overwrite A's file");
        $this->assertSame('from B', $b->get('sharedid1'));
        $this->assertSame(2, apcu_fetch('jobe-files:files'), 'two files in one bounded cache');
        foreach (['', 'k', 'kaaaaaaaaaaa', 'kAAAAAAAAAAAA', 'k../../etc/pa', 'kaaaaaaaaaaaaa'] as $bad) {
            try {
                $this->cache(100, 1_000_000, $bad);
                $this->fail('a space must be a letter and 12 hex digits: ' . $bad);
            } catch (\InvalidArgumentException) {
                $this->addToAssertionCount(1);
            }
        }
    }

    public function testPastTheFileBoundTheLeastRecentlyUsedGo(): void
    {
        $cache = $this->cache(10, 1_000_000);
        foreach (['fileaaaa', 'filebbbb', 'filecccc', 'filedddd', 'fileeeee', 'fileffff', 'filegggg', 'filehhhh', 'fileiiii', 'filejjjj'] as $n => $id) {
            $cache->put($id, base64_encode("file $id"));
            touch($this->file($id), 1_000_000 + $n);
        }
        $this->assertCount(10, $this->kept(), 'within the bound: nothing goes');
        $this->assertSame("file fileaaaa", $cache->get('fileaaaa'), 'a run uses the oldest: it becomes the newest');
        $cache->put('filekkkk', base64_encode('file filekkkk'));
        // 11 > 10: down to 9 (90%), the least recently used first
        $this->assertSame(['fileaaaa', 'filedddd', 'fileeeee', 'fileffff', 'filegggg', 'filehhhh', 'fileiiii', 'filejjjj', 'filekkkk'], $this->kept());
        $this->assertSame(9, apcu_fetch('jobe-files:files'));
    }

    public function testAFilePutAgainIsCountedOnceAndTheByteBoundHolds(): void
    {
        $cache = $this->cache(100, 250);
        $cache->put('fileaaaa', base64_encode(str_repeat('a', 100)));
        $cache->put('fileaaaa', base64_encode(str_repeat('a', 100)));
        $this->assertSame(1, apcu_fetch('jobe-files:files'));
        $this->assertSame(100, apcu_fetch('jobe-files:bytes'));
        touch($this->file('fileaaaa'), 1_000_000);
        $cache->put('filebbbb', base64_encode(str_repeat('b', 100)));
        $cache->put('filecccc', base64_encode(str_repeat('c', 100)));
        $this->assertSame(['filebbbb', 'filecccc'], $this->kept());
        $this->assertFalse($cache->has('fileaaaa'), 'a run naming it gets 404, and CodeRunner puts it again');
    }
}
