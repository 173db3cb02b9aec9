<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** GET /healthz: MySQL, memcached and the sandbox (its isolation said plainly). */
final class Health
{
    public function __construct(private readonly Config $c)
    {
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    public function check(): array
    {
        $comp = [];
        $ok = true;
        try {
            Db::pdo($this->c)->query('SELECT 1')->fetchColumn();
            $comp['mysql'] = 'ok';
        } catch (\Throwable $e) {
            $comp['mysql'] = 'down';
            $ok = false;
        }
        $mc = Session::memcached($this->c);
        $mc->get('health:engine');
        $rc = $mc->getResultCode();
        // Not fatal: sessions are read from MariaDB while memcached is away (Session::load).
        $comp['memcached'] = in_array($rc, [\Memcached::RES_SUCCESS, \Memcached::RES_NOTFOUND], true) ? 'ok' : 'down';
        $box = new Sandbox($this->c);
        $mode = $box->knownIsolation();
        $cgroups = apcu_fetch('sandbox:cgroups');
        if ($mode === null || !is_string($cgroups)) {
            // probe in a free slot; when every slot is busy the sandbox is evidently working
            $slot = Slots::tryAcquire($this->c);
            if ($slot !== null) {
                $mode = $box->isolation($slot);
                $cgroups = $box->cgroups($slot);
                Slots::release($slot);
            }
        }
        $launcher = is_file($this->c->launcher) && is_executable($this->c->launcher);
        $comp['sandbox'] = [
            'mode' => match ($mode) {
                'ns' => 'namespaces',
                'plain' => 'plain',
                null => 'unknown (every slot busy)',
                default => 'unavailable',
            },
            // what binds a step's memory, processes and CPU: "v2", "v1" (cgroups) or "none" (rlimits)
            'cgroups' => is_string($cgroups) ? $cgroups : 'unknown (every slot busy)',
            'launcher' => $launcher ? 'ok' : 'missing',
            'slots' => $this->c->slots,
        ];
        if ($mode === 'plain') {
            $comp['sandbox']['warning'] = 'WEAK ISOLATION: namespaces are unavailable and the admin opted in to plain mode '
                . '(SANDBOX_ALLOW_PLAIN=1): programs see the host\'s files and /tmp';
        } elseif ($mode === Sandbox::UNAVAILABLE) {
            $comp['sandbox']['error'] = 'namespaces are unavailable here and plain isolation is not allowed '
                . '(SANDBOX_ALLOW_PLAIN=1 to accept it): no code can run';
        }
        $ok = $ok && $launcher && $mode !== Sandbox::UNAVAILABLE;
        return [$ok ? 200 : 503, ['status' => $ok ? 'ok' : 'down', 'components' => $comp], []];
    }
}
