<?php

declare(strict_types=1);

namespace Prutor\Engine\Jobe;

use Prutor\Engine\ClientAddress;
use Prutor\Engine\Config;
use Prutor\Engine\HttpError;
use Prutor\Engine\Metrics;
use Prutor\Engine\Telemetry;

/**
 * Who may call the Jobe API: closed by default. A caller shows an API key in the
 * X-API-KEY header (ENGINE_JOBE_KEYS, each with its own runs per hour), or comes from an
 * address an admin opened (ENGINE_JOBE_OPEN_ADDRESSES, with ENGINE_JOBE_OPEN_RATE_PER_HOUR).
 * The client's address is ClientAddress's (ENGINE_TRUSTED_PROXIES).
 * Runs and file PUTs are counted per caller, each against its own hourly budget, in
 * memcached shared by every replica (RateLimit). Each caller has its own space of support
 * files (FileCache): the space is derived from the key (or the opened address), never
 * from anything the request names.
 */
final class Access
{
    /** @param RateLimit|null $limiter the counts (default: the engine's memcached, RateLimit::of) */
    public function __construct(private readonly Config $c, private ?RateLimit $limiter = null)
    {
    }

    /**
     * @param array<string, mixed> $server
     * @param string|null $counted what this call spends: 'runs', 'puts' (PUT files), or null (nothing)
     * @return array{label: string, address: string, space: string} who called, for the run log
     *         (never the key itself), and the caller's file space (FileCache)
     */
    public function admit(array $server, ?string $counted): array
    {
        $address = ClientAddress::of($server, $this->c->trustedProxies);
        $key = isset($server['HTTP_X_API_KEY']) ? trim((string) $server['HTTP_X_API_KEY']) : '';
        $rates = null;
        $label = $space = '';
        if ($key !== '') {
            foreach ($this->c->jobeKeys as $known => $perHour) {
                if (hash_equals((string) $known, $key)) {
                    $rates = ['runs' => $perHour, 'puts' => $this->c->jobePutsPerHour[$known] ?? 0];
                    $label = 'key:' . self::keyId($key);
                    $space = 'k' . self::keyId($key);
                    break;
                }
            }
        }
        if ($rates === null && ClientAddress::in($address, $this->c->jobeOpenAddresses)) {
            $rates = ['runs' => $this->c->jobeOpenRatePerHour, 'puts' => $this->c->jobeOpenPutsPerHour];
            $label = 'address:' . $address;
            $space = 'a' . substr(hash('sha256', 'address:' . $address), 0, 12);
        }
        if ($rates === null) {
            Metrics::inc('jobe_refused');
            Telemetry::log($this->c, 'jobe_refused', ['address' => $address, 'key' => $key === '' ? null : 'unknown']);
            throw new HttpError(403, $key === '' ? 'Missing API key' : 'Unknown API key');
        }
        if ($counted !== null && ($rates[$counted] ?? 0) > 0) {
            $this->count($counted, $label, $rates[$counted], $address);
        }
        return ['label' => $label, 'address' => $address, 'space' => $space];
    }

    /** A short, stable id of a key for logs: the key itself is a secret. */
    public static function keyId(string $key): string
    {
        return substr(hash('sha256', $key), 0, 12);
    }

    /** One call of $what (runs or puts) from the caller's hourly budget, or 429 with Retry-After. */
    private function count(string $what, string $label, int $perHour, string $address): void
    {
        $limiter = $this->limiter ??= RateLimit::of($this->c);
        $wait = $limiter->take($what . ':' . $label, $perHour);
        if ($limiter->backend() !== 'memcached' && function_exists('apcu_add') && apcu_add('jobe:rate:local-logged', 1, 60)) {
            // at most once a minute per replica: the operator learns that the counts are local
            Telemetry::log($this->c, 'jobe_rate_local', ['count' => $limiter->backend(),
                'note' => 'memcached unreachable: Jobe rates counted per replica until it answers']);
        }
        if ($wait > 0) {
            Metrics::inc('jobe_throttled');
            Telemetry::log($this->c, 'jobe_refused', ['caller' => $label, 'address' => $address, 'counted' => $what,
                'rate_per_hour' => $perHour, 'count' => $limiter->backend(), 'retry_after' => $wait]);
            // Jobe's own sentence for runs (CodeRunner shows the string); the same form for files
            throw new HttpError(429, $what === 'runs' ? 'Max RUN rate for this server exceeded' : 'Max file PUT rate for this server exceeded',
                ['Retry-After' => (string) $wait]);
        }
    }
}
