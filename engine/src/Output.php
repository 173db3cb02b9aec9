<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * A program's output as text that can be stored and shown: bytes that are not UTF-8
 * (a common C bug: printing an uninitialised buffer) become visible \xNN escapes, and
 * what is stored is bounded. Output comparison uses the raw bytes, never this text.
 */
final class Output
{
    public static function text(string $bytes, int $maxBytes = PHP_INT_MAX): string
    {
        $cut = strlen($bytes) > $maxBytes;
        if ($cut) {
            $bytes = substr($bytes, 0, $maxBytes);
        }
        if (!self::isUtf8($bytes)) {
            $out = '';
            $n = strlen($bytes);
            for ($i = 0; $i < $n;) {
                // the longest valid UTF-8 sequence starting here, else one escaped byte
                $len = 1;
                $b = ord($bytes[$i]);
                if ($b >= 0xC2 && $b <= 0xF4) {
                    $len = $b < 0xE0 ? 2 : ($b < 0xF0 ? 3 : 4);
                }
                $seq = substr($bytes, $i, $len);
                if ($len > 1 && strlen($seq) === $len && self::isUtf8($seq)) {
                    $out .= $seq;
                    $i += $len;
                } elseif ($b < 0x80) {
                    $out .= $bytes[$i++];
                } else {
                    $out .= sprintf('\\x%02X', $b);
                    $i++;
                }
            }
            $bytes = $out;
        }
        return $cut ? $bytes . "\n[output cut at " . $maxBytes . ' bytes]' : $bytes;
    }

    /** Valid UTF-8 (PCRE's check: no extension needed beyond PHP's core). */
    private static function isUtf8(string $bytes): bool
    {
        return preg_match('//u', $bytes) === 1;
    }
}
