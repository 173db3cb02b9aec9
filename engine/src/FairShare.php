<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * One student cannot take the engine from the others: at most one request in flight per
 * student (a second tab gets 429 at once instead of holding a second slot), and at most
 * ENGINE_EVALUATE_PER_MINUTE evaluations a minute (hidden tests cannot be probed fast).
 * Both live in memcached, shared by every engine worker (and replica); if memcached
 * cannot answer, requests are let through rather than refused.
 */
final class FairShare
{
    /** A crashed worker's claim expires after this long. */
    private const CLAIM_TTL_S = 60;

    private ?string $claimed = null;

    public function __construct(private readonly Config $c)
    {
    }

    public function __destruct()
    {
        $this->release();
    }

    /**
     * $requestId is HAProxy's id of this request (X-Prutor-Request-Id, set on every engine
     * request and the same on HAProxy's retry of it): when the replica that held a claim
     * dies mid-request, HAProxy resends the request to another replica, which takes the
     * dead one's claim over instead of refusing the student's own request with 429.
     */
    public function claim(int $userId, string $requestId = ''): void
    {
        $mc = Session::memcached($this->c);
        $key = 'engine:inflight:' . $userId;
        $owner = $requestId !== '' ? $requestId : '1';
        if ($mc->add($key, $owner, self::CLAIM_TTL_S)) {
            $this->claimed = $key;
            return;
        }
        if ($mc->getResultCode() === \Memcached::RES_NOTSTORED) {
            if ($requestId !== '' && $mc->get($key) === $requestId) {
                $mc->set($key, $owner, self::CLAIM_TTL_S);
                $this->claimed = $key;
                Metrics::inc('inflight_retry');
                return;
            }
            Metrics::inc('inflight_refused');
            throw new HttpError(429, 'you already have a compile, run or evaluation in progress: wait for it to finish',
                ['Retry-After' => '1']);
        }
    }

    public function release(): void
    {
        if ($this->claimed !== null) {
            Session::memcached($this->c)->delete($this->claimed);
            $this->claimed = null;
        }
    }

    public function countEvaluation(int $userId): void
    {
        $limit = $this->c->evaluatePerMinute;
        if ($limit <= 0) {
            return;
        }
        $minute = intdiv(time(), 60);
        $key = 'engine:evals:' . $userId . ':' . $minute;
        $mc = Session::memcached($this->c);
        $n = $mc->increment($key, 1);
        if ($n === false) {
            $n = $mc->add($key, 1, 120) ? 1 : (int) $mc->increment($key, 1);
        }
        if ($n > $limit) {
            Metrics::inc('evaluate_rate_refused');
            $wait = (string) (60 - time() % 60);
            throw new HttpError(429, 'at most ' . $limit . ' evaluations a minute: try again in ' . $wait . ' s',
                ['Retry-After' => $wait]);
        }
    }
}
