<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * A request's body, read only once it is known to fit the route's limit. PHP reads no
 * body by itself (enable_post_data_reading is off, httpd.conf.tmpl): a declared
 * Content-Length over the limit gets 413 before a byte is read, a body sent without a
 * length is read up to the limit and refused past it. A body that ends short of its
 * declared length (Apache's RequestReadTimeout cut a slow one off) gets 408: nothing
 * half-received is parsed.
 */
final class RequestBody
{
    /** @param array<string, mixed> $server */
    public static function read(array $server, int $maxBytes, string $source = 'php://input'): string
    {
        $declared = (string) ($server['CONTENT_LENGTH'] ?? '');
        if ($declared !== '' && !ctype_digit($declared)) {
            throw new HttpError(400, 'the Content-Length header is not a number');
        }
        if ($declared !== '' && (strlen($declared) > 18 || (int) $declared > $maxBytes)) {
            throw new HttpError(413, self::tooLarge($maxBytes));
        }
        $in = @fopen($source, 'rb');
        if ($in === false) {
            throw new HttpError(500, 'the engine cannot read the request body');
        }
        $body = (string) stream_get_contents($in, $maxBytes + 1);
        fclose($in);
        if (strlen($body) > $maxBytes) {
            throw new HttpError(413, self::tooLarge($maxBytes));
        }
        if ($declared !== '' && strlen($body) < (int) $declared) {
            throw new HttpError(408, 'the request body did not arrive in time');
        }
        return $body;
    }

    private static function tooLarge(int $maxBytes): string
    {
        return 'the request is too large (at most ' . intdiv($maxBytes, 1024) . ' KiB)';
    }
}
