<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Compare;

final class CompareTest extends TestCase
{
    /** @return list<array{string, string, bool}> */
    public static function trimCases(): array
    {
        return [
            ["5\n", '5', true],
            ["5\n", "5\n\n\n", true],
            ["a b\nc\n", "a b  \nc\t\n", true],
            ["5\r\n", "5\n", true],
            ["5\n", "6\n", false],
            ["a b\n", "a  b\n", false],
            ["\n5\n", "5\n", false],
            ['', "\n\n", true],
        ];
    }

    /** @dataProvider trimCases */
    public function testTrimModeIgnoresTrailingWhitespaceAndNewlinesOnly(string $exp, string $act, bool $eq): void
    {
        $this->assertSame($eq, Compare::equal($exp, $act));
    }

    public function testExactModeComparesBytes(): void
    {
        $this->assertTrue(Compare::equal("Hello, World!\n", "Hello, World!\n", 'exact'));
        $this->assertFalse(Compare::equal("Hello, World!\n", 'Hello, World!', 'exact'));
        $this->assertFalse(Compare::equal("x\n", "x \n", 'exact'));
    }
}
