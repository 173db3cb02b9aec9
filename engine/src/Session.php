<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * The webapp's session: cookie prutor.sid = <sid>.<base64url(HMAC-SHA256(secret, sid))>,
 * JSON in memcached under sess:<sid>, read through one persistent connection per worker.
 * When memcached misses (restarted, evicted) or is down, the durable copy in MariaDB
 * (`sessions`, keyed by base64url(SHA-256(sid)); webapp/src/shared/session.js writes
 * it) is read and put back, so a memcached restart signs nobody out.
 * A memcached copy is refused while its session is in `session_revocations`: revoked
 * while memcached could not take the delete (the webapp retries it).
 */
final class Session
{
    private const REVOKED_REFRESH_S = 2;
    public const REVOKED_CACHE_KEY = 'sessions:revoked';

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
                    // after a memcached restart, try the server again within a second
                    \Memcached::OPT_RETRY_TIMEOUT => 1,
                    // Several nodes: libketama's key distribution (MD5, 160 points a
                    // node), the webapp's node client's default, so both find a key on
                    // the same node (memcached/test.sh). A node that is down is never
                    // taken out of the ring: its keys miss rather than move.
                    \Memcached::OPT_LIBKETAMA_COMPATIBLE => true,
                    \Memcached::OPT_REMOVE_FAILED_SERVERS => false,
                ]);
                $mc->addServers($c->memcachedServers);
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
        $mc = self::memcached($c);
        $data = self::decode($mc->get('sess:' . $sid));
        if ($data !== null && self::revokedPending($c, $sid)) {
            return null; // its row in `sessions` is gone: no second chance below
        }
        if ($data === null) {
            $memcachedUp = $mc->getResultCode() === \Memcached::RES_NOTFOUND
                || $mc->getResultCode() === \Memcached::RES_SUCCESS;
            // A database error propagates (503): an unreachable store is not a sign-out.
            $row = Db::run($c, 'SELECT data, TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(3), expires_at) AS ttl
                FROM sessions WHERE id = ? AND expires_at > UTC_TIMESTAMP(3)', [self::storeKey($sid)])->fetch();
            $data = is_array($row) ? self::decode($row['data']) : null;
            if ($data === null) {
                return null;
            }
            if ($memcachedUp) {
                $mc->set('sess:' . $sid, (string) $row['data'], max(1, (int) $row['ttl']));
            }
        }
        return new self($data);
    }

    /**
     * Whether the session was revoked while memcached could not take the delete of its
     * copy there (`session_revocations`, rows written and removed by the webapp). The
     * table's ids are kept in APCu for REVOKED_REFRESH_S seconds, as long as a webapp
     * worker keeps its list: one query per refresh for the whole engine (as LabLock),
     * none per request. The table is almost always empty; a database error propagates
     * (503): without the list a revoked copy cannot be told apart.
     */
    public static function revokedPending(Config $c, string $sid): bool
    {
        $hit = false;
        $ids = apcu_fetch(self::REVOKED_CACHE_KEY, $hit);
        if (!$hit || !is_array($ids)) {
            $ids = [];
            $rows = Db::run($c, 'SELECT id FROM session_revocations WHERE expires_at > UTC_TIMESTAMP(3) LIMIT 10000')->fetchAll();
            foreach ($rows as $r) {
                $ids[(string) $r['id']] = true;
            }
            apcu_store(self::REVOKED_CACHE_KEY, $ids, self::REVOKED_REFRESH_S);
        }
        return $ids !== [] && isset($ids[self::storeKey($sid)]);
    }

    /** The durable copy's key: base64url(SHA-256(sid)), never the sid itself. */
    public static function storeKey(string $sid): string
    {
        return rtrim(strtr(base64_encode(hash('sha256', $sid, true)), '+/', '-_'), '=');
    }

    /** @return array<string, mixed>|null */
    private static function decode(mixed $raw): ?array
    {
        if (!is_string($raw) || $raw === '') {
            return null;
        }
        $data = json_decode($raw, true);
        return is_array($data) && isset($data['uid'], $data['role']) ? $data : null;
    }

    public function userId(): int
    {
        return (int) $this->data['uid'];
    }

    public function role(): string
    {
        return (string) $this->data['role'];
    }

    /**
     * A session of background work nobody waits for (the webapp's automatic grader marks
     * its own session so; sessions live only on the server, so a client cannot claim it).
     */
    public function isBackground(): bool
    {
        return ($this->data['background'] ?? false) === true;
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
