<?php

declare(strict_types=1);

namespace Prutor\Engine\Jobe;

use Prutor\Engine\Config;
use Prutor\Engine\Session;

/**
 * Calls per caller per hour (the Jobe API's runs and file PUTs, each its own count), counted
 * in memcached, so every Apache worker of every engine replica draws on one budget: N
 * replicas no longer allow N times a key's rate (each replica's APCu was its own count).
 *
 * A sliding window, approximated as memcached rate limiters usually are: one counter per
 * fixed window (add + incr, atomic in memcached, expiring after two windows), and a call is
 * admitted while this window's count plus the previous window's count weighted by the part
 * of it still inside the last hour (rounded down) stays within the limit. So a key cannot
 * spend its whole rate just before the hour turns and again just after it. A refused call
 * gives its unit back (decr): the count is of admitted calls, a client hammering past the
 * limit does not push its own next slot further away, and however many callers race, each
 * admitted call held a unit while its incremented value was within the limit, so at most
 * `limit` are admitted per window.
 *
 * memcached unreachable: the count falls back to this replica's APCu (one host's workers
 * share it). That is a choice of the exam's availability over strict global accounting:
 * sessions already survive a memcached outage (MariaDB), and failing closed here would
 * turn every CodeRunner question of every course (a Moodle quiz may be an exam) into an
 * error for the length of a memcached restart. Refusing nothing would leave a key
 * unbounded; the local count still bounds each replica to the key's rate, so during the
 * outage a key gets at most N times its rate, which is what it got before this class, and
 * the sandbox slots and HAProxy's maxconn bound the CPU whatever the count says. The
 * caller is told which count decided (backend(); Access logs it).
 */
final class RateLimit
{
    public const WINDOW_S = 3600;

    private string $backend = 'none';

    public function __construct(private readonly ?\Memcached $mc)
    {
    }

    /** The engine's limiter: the memcached connection the sessions use (MEMCACHED_SERVERS). */
    public static function of(Config $c): self
    {
        return new self(class_exists(\Memcached::class) ? Session::memcached($c) : null);
    }

    /** Which count decided the last take(): memcached, apcu, or none (neither reachable: admitted). */
    public function backend(): string
    {
        return $this->backend;
    }

    /**
     * Takes one call from $bucket's budget of $limit per window (0: no limit).
     *
     * @return int 0 when admitted, else the seconds until a call would be (Retry-After, >= 1)
     */
    public function take(string $bucket, int $limit, int $windowS = self::WINDOW_S, ?int $now = null): int
    {
        if ($limit <= 0) {
            return 0;
        }
        $now ??= time();
        $window = intdiv($now, $windowS);
        $elapsed = $now - $window * $windowS;
        $key = 'jobe:rate:' . $bucket . ':';
        $ttl = 2 * $windowS + 60;
        $n = $this->mcIncr($key . $window, $ttl);
        if ($n !== null) {
            $this->backend = 'memcached';
            $prev = $this->previous($key . ($window - 1), $windowS - $elapsed);
        } elseif (function_exists('apcu_enabled') && apcu_enabled()) {
            // memcached unreachable: this replica's own count (see the class comment)
            $this->backend = 'apcu';
            apcu_add($key . $window, 0, $ttl);
            $n = apcu_inc($key . $window);
            $prev = apcu_fetch($key . ($window - 1));
            $prev = is_int($prev) ? $prev : 0;
            if ($n === false) {
                $this->backend = 'none';
                return 0;
            }
        } else {
            $this->backend = 'none';
            return 0;
        }
        $weighted = intdiv($prev * ($windowS - $elapsed), $windowS);
        if ($n + $weighted <= $limit) {
            return 0;
        }
        // refused: give the unit back, so that the count is of admitted calls
        if ($this->backend === 'memcached') {
            $this->mc?->decrement($key . $window, 1);
        } else {
            apcu_dec($key . $window);
        }
        return self::wait($n - 1, $prev, $limit, $windowS, $elapsed);
    }

    /**
     * Seconds until one more call fits, with $held calls admitted in this window, $prev in
     * the previous one, $elapsed seconds into this window, and no other calls meanwhile.
     */
    public static function wait(int $held, int $prev, int $limit, int $windowS, int $elapsed): int
    {
        // later in this window: held + 1 + floor(prev * (W - e) / W) <= limit, i.e. with
        // room = limit - held - 1: prev * e > W * (prev - room - 1), in integers
        $room = $limit - $held - 1;
        if ($room >= 0) {
            $e = $prev > $room ? intdiv($windowS * ($prev - $room - 1), $prev) + 1 : 0;
            if ($e < $windowS) {
                return max(1, $e - $elapsed);
            }
        }
        // in the next window (held becomes the previous count): 1 + floor(held * (W - e) / W)
        // <= limit, i.e. held * e > W * (held - limit)
        $e = $held >= $limit ? intdiv($windowS * ($held - $limit), $held) + 1 : 0;
        return max(1, $windowS - $elapsed + $e);
    }

    /**
     * The previous window's count in memcached. It is closed (only calls in flight at the
     * turn of the window still change it), so each replica keeps it in APCu for up to a
     * minute: one memcached round trip per call instead of two.
     */
    private function previous(string $key, int $left): int
    {
        $apcu = function_exists('apcu_enabled') && apcu_enabled();
        if ($apcu) {
            $v = apcu_fetch('mc:' . $key, $hit);
            if ($hit && is_int($v)) {
                return $v;
            }
        }
        $v = $this->mc?->get($key);
        $found = is_numeric($v);
        $v = $found ? (int) $v : 0;
        if ($apcu && ($found || $this->mc?->getResultCode() === \Memcached::RES_NOTFOUND)) {
            apcu_store('mc:' . $key, $v, max(1, min(60, $left)));
        }
        return $v;
    }

    /** memcached's count after one more, or null when memcached cannot answer. */
    private function mcIncr(string $key, int $ttl): ?int
    {
        if ($this->mc === null) {
            return null;
        }
        $n = $this->mc->increment($key, 1);
        if (is_int($n)) {
            return $n;
        }
        if ($this->mc->getResultCode() !== \Memcached::RES_NOTFOUND) {
            return null;
        }
        if ($this->mc->add($key, 1, $ttl)) {
            return 1;
        }
        if ($this->mc->getResultCode() !== \Memcached::RES_NOTSTORED) {
            return null;
        }
        $n = $this->mc->increment($key, 1); // another worker added it first
        return is_int($n) ? $n : null;
    }
}
