<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** A request's fields (JSON or form-encoded), read with the checks every endpoint needs. */
final class Input
{
    /** @param array<string, mixed> $fields */
    public function __construct(public readonly array $fields)
    {
    }

    public static function parse(string $contentType, string $body): self
    {
        if (stripos($contentType, 'application/json') !== false || ($body !== '' && $body[0] === '{')) {
            $in = json_decode($body, true);
            if (!is_array($in)) {
                throw new HttpError(400, 'the request body is not valid JSON');
            }
            return new self($in);
        }
        parse_str($body, $in);
        return new self($in);
    }

    public function has(string $k): bool
    {
        return isset($this->fields[$k]);
    }

    public function int(string $k): int
    {
        $v = $this->fields[$k] ?? null;
        if (is_int($v) || (is_string($v) && ctype_digit($v))) {
            return (int) $v;
        }
        throw new HttpError(400, 'missing or invalid ' . $k);
    }

    public function str(string $k, int $maxBytes, ?string $default = null): string
    {
        $v = $this->fields[$k] ?? $default;
        if (!is_string($v)) {
            throw new HttpError(400, 'missing ' . $k);
        }
        if (strlen($v) > $maxBytes) {
            throw new HttpError(413, $k . ' is too long (at most ' . intdiv($maxBytes, 1024) . ' KiB)');
        }
        return $v;
    }
}
