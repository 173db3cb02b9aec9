<?php

declare(strict_types=1);

namespace Prutor\Engine\Jobe;

/**
 * Jobe joins compileargs, linkargs, interpreterargs and runargs into a shell command, so
 * one element may hold several words ("-x c", '-c "print(1)"'). This splits them by the
 * shell's quoting rules (single and double quotes, backslash) into an argv, without a
 * shell: no expansion, no redirection, no command substitution.
 */
final class Args
{
    /**
     * @param mixed $list the caller's value: a list of strings (anything else: null)
     * @return ?list<string>
     */
    public static function split(mixed $list): ?array
    {
        if (!is_array($list)) {
            return null;
        }
        $argv = [];
        foreach ($list as $item) {
            if (!is_string($item) && !is_int($item) && !is_float($item)) {
                return null;
            }
            array_push($argv, ...self::words((string) $item));
        }
        return $argv;
    }

    /** @return list<string> */
    public static function words(string $s): array
    {
        $words = [];
        $cur = '';
        $inWord = false;
        $quote = '';
        $n = strlen($s);
        for ($i = 0; $i < $n; $i++) {
            $ch = $s[$i];
            if ($quote === "'") {
                if ($ch === "'") {
                    $quote = '';
                } else {
                    $cur .= $ch;
                }
            } elseif ($quote === '"') {
                if ($ch === '"') {
                    $quote = '';
                } elseif ($ch === '\\' && $i + 1 < $n && str_contains('"\\$`', $s[$i + 1])) {
                    $cur .= $s[++$i];
                } else {
                    $cur .= $ch;
                }
            } elseif ($ch === '\\' && $i + 1 < $n) {
                $cur .= $s[++$i];
                $inWord = true;
            } elseif ($ch === "'" || $ch === '"') {
                $quote = $ch;
                $inWord = true;
            } elseif (ctype_space($ch)) {
                if ($inWord) {
                    $words[] = $cur;
                }
                $cur = '';
                $inWord = false;
            } else {
                $cur .= $ch;
                $inWord = true;
            }
        }
        if ($inWord) {
            $words[] = $cur;
        }
        return $words;
    }
}
