<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Safe Exam Browser on the engine's student routes, the same rule as the webapp's
 * (webapp/src/lti/seb.js): an event with a row in `event_seb` needs, on its students'
 * requests, one of SEB's headers (https://safeexambrowser.org/developer/seb-config-key.html)
 *   X-SafeExamBrowser-ConfigKeyHash = hex SHA-256(URL + Config Key)
 *   X-SafeExamBrowser-RequestHash   = hex SHA-256(URL + Browser Exam Key)
 * where URL is the absolute URL the browser asked for: the scheme HAProxy saw
 * (X-Forwarded-Proto, believed from a trusted proxy only, as Express's `trust proxy`), the
 * Host header as sent (HAProxy passes it unchanged; X-Forwarded-Host is not used on
 * either side), then the path and query as sent (REQUEST_URI, Express's originalUrl), no
 * fragment. Both sides are checked against the vectors in tests/seb-hash-vectors.json.
 * The keys come with the row StudentApi already reads to authorise the request (a LEFT
 * JOIN of event_seb): events without SEB cost no query and no hash.
 */
final class SafeExamBrowser
{
    public const REFUSED = 'This exam must be taken in Safe Exam Browser, opened with the configuration your instructor gave out (the event\'s .seb file). This browser did not prove it: open the exam from Safe Exam Browser, or ask the invigilator.';

    public static function hash(string $url, string $key): string
    {
        return hash('sha256', $url . $key);
    }

    /**
     * The absolute URL of the request as the browser sent it (see the class comment).
     *
     * @param array<string, mixed> $server
     * @param list<string> $trustedProxies addresses or CIDR blocks (ENGINE_TRUSTED_PROXIES)
     */
    public static function requestUrl(array $server, array $trustedProxies): string
    {
        $https = isset($server['HTTPS']) && $server['HTTPS'] !== '' && strtolower((string) $server['HTTPS']) !== 'off';
        $scheme = $https ? 'https' : 'http';
        $forwarded = trim(explode(',', (string) ($server['HTTP_X_FORWARDED_PROTO'] ?? ''))[0]);
        if ($forwarded !== '' && ClientAddress::in((string) ($server['REMOTE_ADDR'] ?? ''), $trustedProxies)) {
            $scheme = $forwarded;
        }
        return $scheme . '://' . (string) ($server['HTTP_HOST'] ?? '') . (string) ($server['REQUEST_URI'] ?? '/');
    }

    /**
     * The keys as event_seb stores them: hex strings separated by white space or commas.
     *
     * @return list<string>
     */
    public static function keys(?string $text): array
    {
        return array_values(array_unique(array_filter(preg_split('/[\s,]+/', strtolower((string) $text)) ?: [], 'strlen')));
    }

    /**
     * Refuses (403) a student's request of an event requiring SEB without a valid hash for
     * this very URL. $configKeys / $examKeys are the event's event_seb columns, null when
     * the event does not require SEB (nothing to check). Staff are not checked, as in the webapp.
     *
     * @param array<string, mixed> $server
     */
    public static function check(Config $c, Session $s, array $server, ?string $configKeys, ?string $examKeys): void
    {
        if (($configKeys === null && $examKeys === null) || $s->role() !== 'student') {
            return;
        }
        $url = self::requestUrl($server, $c->trustedProxies);
        if (self::matches($server['HTTP_X_SAFEEXAMBROWSER_CONFIGKEYHASH'] ?? null, $url, self::keys($configKeys))
            || self::matches($server['HTTP_X_SAFEEXAMBROWSER_REQUESTHASH'] ?? null, $url, self::keys($examKeys))) {
            return;
        }
        throw new HttpError(403, self::REFUSED);
    }

    /** @param list<string> $keys */
    public static function matches(mixed $header, string $url, array $keys): bool
    {
        if (!is_string($header) || !preg_match('/^[0-9a-fA-F]{64}$/', $header)) {
            return false;
        }
        $got = strtolower($header);
        foreach ($keys as $k) {
            if (hash_equals(self::hash($url, $k), $got)) {
                return true;
            }
        }
        return false;
    }
}
