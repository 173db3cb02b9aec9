<?php

declare(strict_types=1);

namespace Prutor\Engine\Help;

/**
 * A helper that explains gcc's messages to a novice (issue 16). The engine gives it
 * the compile's structured messages (GccMessages::parse: line, column, severity,
 * text, in gcc's order) and the code; it answers a plainer explanation for the
 * messages it understands, keyed by their index. Configured by
 * ENGINE_COMPILE_HELPER (a class name implementing this interface, or "none").
 * A helper must be fast and must not reach the network: it runs inside /compile.
 */
interface CompileHelper
{
    /**
     * @param list<array{line: int, column: int, severity: string, text: string}> $messages
     * @return array<int, string> message index => explanation (plain text)
     */
    public function explain(array $messages, string $code): array;
}
