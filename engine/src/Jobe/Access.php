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
 * Runs are counted per caller in fixed one-hour windows (APCu, shared by the workers).
 */
final class Access
{
    public function __construct(private readonly Config $c)
    {
    }

    /**
     * @param array<string, mixed> $server
     * @return array{label: string, address: string} who called, for the run log (never the key itself)
     */
    public function admit(array $server, bool $isRun): array
    {
        $address = ClientAddress::of($server, $this->c->trustedProxies);
        $key = isset($server['HTTP_X_API_KEY']) ? trim((string) $server['HTTP_X_API_KEY']) : '';
        $rate = null;
        $label = '';
        if ($key !== '') {
            foreach ($this->c->jobeKeys as $known => $perHour) {
                if (hash_equals((string) $known, $key)) {
                    $rate = $perHour;
                    $label = 'key:' . self::keyId($key);
                    break;
                }
            }
        }
        if ($rate === null && ClientAddress::in($address, $this->c->jobeOpenAddresses)) {
            $rate = $this->c->jobeOpenRatePerHour;
            $label = 'address:' . $address;
        }
        if ($rate === null) {
            Metrics::inc('jobe_refused');
            Telemetry::log($this->c, 'jobe_refused', ['address' => $address, 'key' => $key === '' ? null : 'unknown']);
            throw new HttpError(403, $key === '' ? 'Missing API key' : 'Unknown API key');
        }
        if ($isRun && $rate > 0) {
            $this->count($label, $rate, $address);
        }
        return ['label' => $label, 'address' => $address];
    }

    /** A short, stable id of a key for logs: the key itself is a secret. */
    public static function keyId(string $key): string
    {
        return substr(hash('sha256', $key), 0, 12);
    }

    private function count(string $label, int $perHour, string $address): void
    {
        $window = intdiv(time(), 3600);
        $k = 'jobe:rate:' . $label . ':' . $window;
        apcu_add($k, 0, 7200);
        $n = apcu_inc($k);
        if ($n === false || $n > $perHour) {
            Metrics::inc('jobe_throttled');
            Telemetry::log($this->c, 'jobe_refused', ['caller' => $label, 'address' => $address, 'rate_per_hour' => $perHour]);
            throw new HttpError(429, 'Max RUN rate for this server exceeded', ['Retry-After' => (string) (($window + 1) * 3600 - time())]);
        }
    }
}
