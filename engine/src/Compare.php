<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * How a run's output is compared with the expected output, one rule per mode
 * (rdb/migrations/035 lists them for the instructor; the README says the same):
 *
 * - exact: byte for byte.
 * - trim: CRLF read as LF, trailing spaces and tabs of each line and trailing newlines ignored.
 * - whitespace: as trim, and within a line every run of spaces and tabs counts as one
 *   space, leading ones as none; blank lines are ignored. Line breaks still matter.
 * - case: as trim, with ASCII letters compared without case.
 * - tokens: the outputs as lists of whitespace-separated tokens; line breaks do not matter.
 * - numbers: as tokens; where the expected token is a number (decimal, optional sign
 *   and exponent; inf and nan spelled in any case) the actual token must be a number
 *   within the absolute OR the relative tolerance of it, as Kattis' default output
 *   validator's float_absolute_tolerance / float_relative_tolerance: accepted when
 *   |e - a| <= abs or |e - a| <= rel * |e|. Without tolerances the values must be equal
 *   ("1.0" matches "1"). nan matches only nan and inf only the same-signed inf
 *   (Kattis' validator lets any nan through). Other tokens compare as in tokens.
 *
 * A checker program is not a mode of this class: the Judge hands those cases to Checker.
 */
final class Compare
{
    public const MODES = ['exact', 'trim', 'whitespace', 'case', 'tokens', 'numbers'];

    /** A decimal number as the numbers mode reads it (no hex, no digit separators). */
    private const NUMBER = '/^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)$/i';

    public static function normalise(string $s): string
    {
        $s = str_replace("\r\n", "\n", $s);
        $s = (string) preg_replace('/[ \t\r\f\v]+$/m', '', $s);
        return rtrim($s, "\n");
    }

    /**
     * @param ?float $abs absolute tolerance (numbers mode), null or negative: none
     * @param ?float $rel relative tolerance (numbers mode), null or negative: none
     */
    public static function equal(string $expected, string $actual, string $mode = 'trim', ?float $abs = null, ?float $rel = null): bool
    {
        return match ($mode) {
            'exact' => $expected === $actual,
            'trim' => self::normalise($expected) === self::normalise($actual),
            'whitespace' => self::squeeze($expected) === self::squeeze($actual),
            'case' => strtolower(self::normalise($expected)) === strtolower(self::normalise($actual)),
            'tokens' => self::tokens($expected) === self::tokens($actual),
            'numbers' => self::numbersEqual(self::tokens($expected), self::tokens($actual), $abs, $rel),
            default => throw new \InvalidArgumentException('unknown comparison mode "' . substr($mode, 0, 32) . '"'),
        };
    }

    private static function squeeze(string $s): string
    {
        $lines = [];
        foreach (explode("\n", str_replace("\r\n", "\n", $s)) as $line) {
            $line = trim((string) preg_replace('/[ \t\r\f\v]+/', ' ', $line));
            if ($line !== '') {
                $lines[] = $line;
            }
        }
        return implode("\n", $lines);
    }

    /** @return list<string> */
    private static function tokens(string $s): array
    {
        return preg_split('/\s+/', $s, -1, PREG_SPLIT_NO_EMPTY) ?: [];
    }

    /**
     * @param list<string> $exp
     * @param list<string> $act
     */
    private static function numbersEqual(array $exp, array $act, ?float $abs, ?float $rel): bool
    {
        if (count($exp) !== count($act)) {
            return false;
        }
        foreach ($exp as $i => $e) {
            $a = $act[$i];
            if (!preg_match(self::NUMBER, $e)) {
                if ($e !== $a) {
                    return false;
                }
                continue;
            }
            if (!preg_match(self::NUMBER, $a) || !self::close(self::value($e), self::value($a), $abs, $rel)) {
                return false;
            }
        }
        return true;
    }

    private static function value(string $t): float
    {
        $l = strtolower(ltrim($t, '+-'));
        if ($l === 'nan') {
            return NAN;
        }
        $v = str_starts_with($l, 'inf') ? INF : (float) $l;
        return $t[0] === '-' ? -$v : $v;
    }

    /** Whether a matches e within the tolerances (either one suffices). */
    public static function close(float $e, float $a, ?float $abs, ?float $rel): bool
    {
        if (is_nan($e) || is_nan($a)) {
            return is_nan($e) && is_nan($a);
        }
        if (is_infinite($e) || is_infinite($a)) {
            return $e === $a;
        }
        if ($e === $a) {
            return true;
        }
        $d = abs($e - $a);
        // a difference of two huge finite values may overflow to inf: never within a tolerance
        if (is_infinite($d)) {
            return false;
        }
        return ($abs !== null && $abs >= 0 && $d <= $abs) || ($rel !== null && $rel >= 0 && $d <= $rel * abs($e));
    }
}
