<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * The webapp's session: cookie prutor.sid = <sid>.<base64url(HMAC-SHA256(secret, sid))>,
 * JSON in memcached under sess:<sid>, read through one persistent connection per worker.
 */
final class Session
{
    private static ?\Memcached $mc = null;

    /** @param array<string, mixed> $data */
    private function __construct(public readonly array $data)
    {
    }

    public static function sign(string $sid, string $secret): string
    {
        return $sid . '.' . rtrim(strtr(base64_encode(hash_hmac('sha256', $sid, $secret, true)), '+/', '-_'), '=');
    }

    /** Returns the sid when the signature is valid, null otherwise. */
    public static function verify(string $cookie, string $secret): ?string
    {
        if ($secret === '' || !preg_match('/^([A-Za-z0-9_-]{16,128})\.([A-Za-z0-9_-]{43})$/', $cookie, $m)) {
            return null;
        }
        return hash_equals(self::sign($m[1], $secret), $cookie) ? $m[1] : null;
    }

    public static function memcached(Config $c): \Memcached
    {
        if (self::$mc === null) {
            $mc = new \Memcached('prutor-engine');
            if (!$mc->getServerList()) {
                $mc->setOptions([
                    \Memcached::OPT_BINARY_PROTOCOL => false,
                    \Memcached::OPT_COMPRESSION => false,
                    \Memcached::OPT_CONNECT_TIMEOUT => 200,
                    \Memcached::OPT_POLL_TIMEOUT => 500,
                    \Memcached::OPT_TCP_NODELAY => true,
                ]);
                $mc->addServer($c->memcachedHost, $c->memcachedPort);
            }
            self::$mc = $mc;
        }
        return self::$mc;
    }

    /** Reads the session from the raw Cookie header; null without a valid one. */
    public static function load(Config $c, string $cookieHeader): ?self
    {
        $value = null;
        foreach (explode(';', $cookieHeader) as $part) {
            $kv = explode('=', trim($part), 2);
            if (count($kv) === 2 && $kv[0] === 'prutor.sid') {
                $value = rawurldecode($kv[1]);
            }
        }
        if ($value === null) {
            return null;
        }
        $sid = self::verify($value, $c->sessionSecret);
        if ($sid === null) {
            return null;
        }
        $raw = self::memcached($c)->get('sess:' . $sid);
        if (!is_string($raw)) {
            return null;
        }
        $data = json_decode($raw, true);
        if (!is_array($data) || !isset($data['uid'], $data['role'])) {
            return null;
        }
        return new self($data);
    }

    public function userId(): int
    {
        return (int) $this->data['uid'];
    }

    public function role(): string
    {
        return (string) $this->data['role'];
    }

    public function isStaff(): bool
    {
        return in_array($this->role(), ['admin', 'instructor', 'ta'], true);
    }

    public function csrfOk(string $token): bool
    {
        $csrf = (string) ($this->data['csrf'] ?? '');
        return $csrf !== '' && hash_equals($csrf, $token);
    }
}
