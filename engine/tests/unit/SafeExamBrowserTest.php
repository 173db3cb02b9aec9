<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\SafeExamBrowser;

/** The hash rule shared with the webapp (webapp/test/unit/seb-hash.test.js reads the same vectors). */
final class SafeExamBrowserTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function vectors(): array
    {
        return json_decode((string) file_get_contents(dirname(__DIR__, 3) . '/tests/seb-hash-vectors.json'), true, 8, JSON_THROW_ON_ERROR);
    }

    public function testTheSharedVectors(): void
    {
        $v = self::vectors();
        $this->assertNotEmpty($v['vectors']);
        foreach ($v['vectors'] as $t) {
            $this->assertSame($t['hash'], SafeExamBrowser::hash($t['url'], $t['key']), $t['url']);
            $this->assertTrue(SafeExamBrowser::matches(strtoupper($t['hash']), $t['url'], ['f' . substr($t['key'], 1), $t['key']]));
            $this->assertFalse(SafeExamBrowser::matches($t['hash'], $t['url'] . '/', [$t['key']]), 'another URL');
        }
    }

    public function testTheUrlIsTheOneTheBrowserUsedSchemeFromATrustedProxyOnly(): void
    {
        foreach (self::vectors()['requests'] as $t) {
            $this->assertSame($t['url'], SafeExamBrowser::requestUrl($t['server'], ['127.0.0.0/8']));
        }
    }

    public function testKeysAreReadAsTheWebappStoresThem(): void
    {
        $a = str_repeat('a', 64);
        $b = str_repeat('b', 64);
        $this->assertSame([$a, $b], SafeExamBrowser::keys("\n" . strtoupper($a) . ",\n $b\n$a"));
        $this->assertSame([], SafeExamBrowser::keys(''));
        $this->assertSame([], SafeExamBrowser::keys(null));
        $this->assertFalse(SafeExamBrowser::matches(null, 'http://x/', [$a]));
        $this->assertFalse(SafeExamBrowser::matches('zz', 'http://x/', [$a]));
    }
}
