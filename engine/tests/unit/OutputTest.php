<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Output;

final class OutputTest extends TestCase
{
    public function testValidUtf8IsKeptAsItIs(): void
    {
        $this->assertSame("héllo wörld ✓\n", Output::text("héllo wörld ✓\n"));
    }

    public function testBytesThatAreNotUtf8BecomeEscapes(): void
    {
        $this->assertSame('ok \xFF\xFE\x80 café', Output::text("ok \xff\xfe\x80 caf\xc3\xa9"));
        $this->assertSame('\xC3(', Output::text("\xc3("), 'a lead byte without its continuation');
        $this->assertSame('\xED\xA0\x80', Output::text("\xed\xa0\x80"), 'a surrogate is not UTF-8');
        $this->assertSame(1, preg_match('//u', Output::text(random_bytes(4096))), 'whatever the bytes, the text is UTF-8');
    }

    public function testStoredOutputIsCutAndSaysSo(): void
    {
        $this->assertSame("abc\n[output cut at 3 bytes]", Output::text('abcdef', 3));
        $this->assertSame('abc', Output::text('abc', 3));
    }
}
