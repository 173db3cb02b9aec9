<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** Output comparison: "trim" ignores trailing whitespace of lines and trailing newlines. */
final class Compare
{
    public static function normalise(string $s): string
    {
        $s = str_replace("\r\n", "\n", $s);
        $s = (string) preg_replace('/[ \t\r\f\v]+$/m', '', $s);
        return rtrim($s, "\n");
    }

    public static function equal(string $expected, string $actual, string $mode = 'trim'): bool
    {
        if ($mode === 'exact') {
            return $expected === $actual;
        }
        return self::normalise($expected) === self::normalise($actual);
    }
}
