<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** Appends one JSON line per event to $PRUTOR_VAR/telemetry/engine.jsonl (never waits on MongoDB). */
final class Telemetry
{
    /** @param array<string, mixed> $fields */
    public static function log(Config $c, string $kind, array $fields): void
    {
        $line = json_encode(['ts' => gmdate('Y-m-d\TH:i:s') . sprintf('.%03dZ', (int) (microtime(true) * 1000) % 1000), 'kind' => $kind] + $fields,
            JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE);
        @file_put_contents($c->varDir . '/telemetry/engine.jsonl', $line . "\n", FILE_APPEND);
    }
}
