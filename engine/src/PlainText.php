<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** A route's answer that is not JSON (the Prometheus exposition of GET /metrics). */
final class PlainText
{
    public function __construct(public readonly string $text, public readonly string $type)
    {
    }
}
