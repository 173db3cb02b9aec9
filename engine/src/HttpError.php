<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** An error with an HTTP status and a message a person understands. */
final class HttpError extends \RuntimeException
{
    /** @param array<string, string> $headers */
    public function __construct(public readonly int $status, string $message, public readonly array $headers = [])
    {
        parent::__construct($message);
    }
}
