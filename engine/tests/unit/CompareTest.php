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
            ['', '', true],
            ["5\n", '', false],
        ];
    }

    /** @dataProvider trimCases */
    public function testTrimModeIgnoresTrailingWhitespaceAndNewlinesOnly(string $exp, string $act, bool $eq): void
    {
        $this->assertSame($eq, Compare::equal($exp, $act));
        $this->assertSame($eq, Compare::equal($exp, $act, 'trim'));
    }

    public function testExactModeComparesBytes(): void
    {
        $this->assertTrue(Compare::equal("Hello, World!\n", "Hello, World!\n", 'exact'));
        $this->assertFalse(Compare::equal("Hello, World!\n", 'Hello, World!', 'exact'));
        $this->assertFalse(Compare::equal("x\n", "x \n", 'exact'));
        $this->assertFalse(Compare::equal("x\n", "x\r\n", 'exact'));
        $this->assertTrue(Compare::equal('', '', 'exact'));
        $this->assertFalse(Compare::equal("\n", '', 'exact'));
    }

    /** @return list<array{string, string, bool}> */
    public static function whitespaceCases(): array
    {
        return [
            ["a b\nc\n", "  a \t  b\n\nc", true],
            ["1 2 3\n", "1   2   3   \n\n", true],
            ["a b\n", "ab\n", false],          // a space between tokens still matters
            ["a b\nc\n", "a b c\n", false],     // line breaks still matter
            ["A\n", "a\n", false],             // case still matters
            ['', " \n\t\n", true],             // empty output against blank lines
            ["x\n", '', false],
        ];
    }

    /** @dataProvider whitespaceCases */
    public function testWhitespaceModeIgnoresSpacingButKeepsLines(string $exp, string $act, bool $eq): void
    {
        $this->assertSame($eq, Compare::equal($exp, $act, 'whitespace'));
    }

    /** @return list<array{string, string, bool}> */
    public static function caseCases(): array
    {
        return [
            ["YES\n", 'yes', true],
            ["Hello World\n", "hELLO wORLD  \n\n", true],
            ["YES\n", "YES!\n", false],
            ["a b\n", "A  B\n", false],        // spacing is as in trim
            ["Ä\n", "ä\n", false],             // ASCII letters only: no locale decides a mark
            ['', '', true],
        ];
    }

    /** @dataProvider caseCases */
    public function testCaseModeIgnoresAsciiCaseAndTrailingWhitespace(string $exp, string $act, bool $eq): void
    {
        $this->assertSame($eq, Compare::equal($exp, $act, 'case'));
    }

    /** @return list<array{string, string, bool}> */
    public static function tokenCases(): array
    {
        return [
            ["1 2\n3\n", "1\n2 3", true],
            ["1 2 3\n", "  1\t2\n\n3  \n", true],
            ["1 2 3\n", "1 23\n", false],
            ["1 2 3\n", "1 2 3 4\n", false],
            ["1 2 3\n", "1 2\n", false],
            ["yes\n", "YES\n", false],
            ["1.0\n", "1\n", false],           // tokens are strings: numbers mode reads values
            ['', "\n \n", true],
            ["0\n", '', false],
        ];
    }

    /** @dataProvider tokenCases */
    public function testTokensModeComparesWhitespaceSeparatedTokens(string $exp, string $act, bool $eq): void
    {
        $this->assertSame($eq, Compare::equal($exp, $act, 'tokens'));
    }

    /** @return list<array{string, string, ?float, ?float, bool}> */
    public static function numberCases(): array
    {
        return [
            // no tolerance: equal values
            ["1.0\n", '1', null, null, true],
            ["1.0\n", '1.0000001', null, null, false],
            ["2.5e3\n", '2500', null, null, true],
            // absolute tolerance
            ["3.14159\n", '3.1416', 1e-4, null, true],
            ["3.14159\n", '3.15', 1e-4, null, false],
            ["0\n", '-0.00000001', 1e-6, null, true],
            // relative tolerance: scaled by the expected value
            ["1000000\n", '1000000.5', null, 1e-6, true],
            ["1000000\n", '1000002', null, 1e-6, false],
            ["0\n", '0.0000001', null, 1e-6, false],      // relative to 0 is nothing
            // either one suffices (Kattis)
            ["0\n", '0.0000001', 1e-6, 1e-6, true],
            ["1000000\n", '1000000.5', 1e-9, 1e-6, true],
            // a negative tolerance is none (Kattis' "-1")
            ["1\n", '1.5', -1.0, 1.0, true],
            ["1\n", '1.5', 1.0, -1.0, true],
            ["1\n", '1.5', -1.0, -1.0, false],
            // words among numbers compare as strings; a word for a number is wrong
            ["x = 1.5 m\n", 'x = 1.50001 m', 1e-3, null, true],
            ["x = 1.5 m\n", 'X = 1.5 m', 1e-3, null, false],
            ["1.5\n", 'one', 1.0, 1.0, false],
            ["1.5\n", '0x1', 10.0, null, false],            // no hex
            ["1.5\n", '1.5.', 1.0, null, false],
            // NaN and infinities
            ["nan\n", 'NaN', 1e-6, 1e-6, true],
            ["nan\n", '1', 1e9, 1e9, false],
            ["1\n", 'nan', 1e9, 1e9, false],
            ["inf\n", 'Infinity', null, null, true],
            ["inf\n", '-inf', 1e300, 1e300, false],
            ["1e308\n", 'inf', 1e300, 1.0, false],
            ["-inf\n", '-INF', null, null, true],
            // huge numbers: no overflow to a match
            ["1e308\n", '-1e308', 1e300, 0.5, false],
            ["1e308\n", '1.0000001e308', null, 1e-6, true],
            ["1e308\n", '1e309', null, 1e-6, false],        // 1e309 reads as inf
            ["123456789012345678901234567890\n", '123456789012345678901234567891', null, 1e-12, true],
            // counts and empty output
            ["1 2\n", '1', 1.0, 1.0, false],
            ["1\n", '1 2', 1.0, 1.0, false],
            ['', '', null, null, true],
            ["0\n", '', 1.0, 1.0, false],
            // line breaks and trailing newline do not matter
            ["1.5\n2.5\n", "1.5 2.5", 0.0, null, true],
        ];
    }

    /** @dataProvider numberCases */
    public function testNumbersModeUsesKattisTolerances(string $exp, string $act, ?float $abs, ?float $rel, bool $eq): void
    {
        $this->assertSame($eq, Compare::equal($exp, $act, 'numbers', $abs, $rel));
    }

    public function testAnUnknownModeIsRefusedNotTreatedAsAnother(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Compare::equal('a', 'a', 'checker');
    }
}
