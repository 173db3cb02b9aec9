<?php

declare(strict_types=1);

namespace Prutor\Engine;

use Prutor\Engine\Help\CompileHelper;

/**
 * The compile-error help hook (issue 16): /compile passes gcc's structured messages
 * to the configured helper (ENGINE_COMPILE_HELPER: a class implementing
 * Help\CompileHelper; default Help\RuleBasedHelper; "none" turns help off) and
 * adds its explanation to each message as "help". A helper that fails or answers
 * nonsense is logged and ignored: help never fails a compile.
 */
final class CompileHelp
{
    private const MAX_HELP = 1000;

    /**
     * @param list<array<string, mixed>> $messages
     * @return list<array<string, mixed>>
     */
    public static function annotate(Config $c, array $messages, string $code): array
    {
        $class = $c->compileHelper;
        if (!$messages || $class === 'none') {
            return $messages;
        }
        try {
            if (!class_exists($class) || !is_subclass_of($class, CompileHelper::class)) {
                throw new \RuntimeException($class . ' is not a ' . CompileHelper::class);
            }
            $help = (new $class())->explain($messages, $code);
        } catch (\Throwable $e) {
            error_log('prutor-engine: compile help: ' . $e->getMessage());
            return $messages;
        }
        foreach ($messages as $i => $m) {
            if (isset($help[$i]) && is_string($help[$i]) && trim($help[$i]) !== '') {
                // at most MAX_HELP characters, cut on a UTF-8 boundary (PCRE: no mbstring needed)
                $messages[$i]['help'] = preg_match('/^.{0,' . self::MAX_HELP . '}/su', trim($help[$i]), $cut) ? $cut[0] : '';
            }
        }
        return $messages;
    }
}
