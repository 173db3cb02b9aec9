<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** Parses gcc's plain diagnostics into {line, column, severity, text} entries. */
final class GccMessages
{
    /** @return list<array{line: int, column: int, severity: string, text: string}> */
    public static function parse(string $raw): array
    {
        $out = [];
        $re = '/^[^:\n]+:(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$/m';
        if (preg_match_all($re, $raw, $m, PREG_SET_ORDER)) {
            foreach ($m as $x) {
                $out[] = [
                    'line' => (int) $x[1],
                    'column' => (int) ($x[2] !== '' ? $x[2] : 0),
                    'severity' => $x[3] === 'fatal error' ? 'error' : $x[3],
                    'text' => $x[4],
                ];
            }
        }
        if (!$out && trim($raw) !== '' && preg_match('/(?:^|\n)[^\n]*(error|undefined reference)[^\n]*/', $raw, $m)) {
            // linker errors carry no line: report them as one entry at line 0
            $out[] = ['line' => 0, 'column' => 0, 'severity' => 'error', 'text' => trim($m[0])];
        }
        return $out;
    }
}
