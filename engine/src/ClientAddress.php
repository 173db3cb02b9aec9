<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * The client's address and address ranges, one rule for every check that uses them (the
 * lab lock-down, the Jobe API's open addresses). The client is REMOTE_ADDR, or, when that
 * is a trusted proxy (HAProxy, which drops a client's own X-Forwarded-For and appends the
 * address it saw), the last X-Forwarded-For entry: anything before it is the client's claim.
 */
final class ClientAddress
{
    /**
     * @param array<string, mixed> $server
     * @param list<string> $trustedProxies addresses or CIDR blocks
     */
    public static function of(array $server, array $trustedProxies): string
    {
        $peer = (string) ($server['REMOTE_ADDR'] ?? '');
        $forwarded = trim((string) ($server['HTTP_X_FORWARDED_FOR'] ?? ''));
        if ($forwarded === '' || !self::in($peer, $trustedProxies)) {
            return $peer;
        }
        $parts = array_map('trim', explode(',', $forwarded));
        $last = (string) end($parts);
        return filter_var($last, FILTER_VALIDATE_IP) !== false ? $last : $peer;
    }

    /**
     * Whether the address is in one of the ranges (an IPv4 address written as ::ffff:a.b.c.d
     * counts as a.b.c.d); no ranges: false.
     *
     * @param list<string> $ranges addresses or CIDR blocks
     */
    public static function in(string $address, array $ranges): bool
    {
        if (preg_match('/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i', $address, $m)) {
            $address = $m[1];
        }
        $ip = @inet_pton($address);
        if ($ip === false) {
            return false;
        }
        foreach ($ranges as $range) {
            [$net, $bits] = array_pad(explode('/', trim($range), 2), 2, null);
            $n = @inet_pton((string) $net);
            if ($n === false || strlen($n) !== strlen($ip)) {
                continue;
            }
            $bits = $bits === null ? strlen($n) * 8 : max(0, min(strlen($n) * 8, (int) $bits));
            $full = intdiv($bits, 8);
            if (substr($ip, 0, $full) !== substr($n, 0, $full)) {
                continue;
            }
            $rest = $bits % 8;
            $mask = (0xff << (8 - $rest)) & 0xff;
            if ($rest === 0 || (ord($ip[$full]) & $mask) === (ord($n[$full]) & $mask)) {
                return true;
            }
        }
        return false;
    }
}
