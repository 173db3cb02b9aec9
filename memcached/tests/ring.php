<?php

declare(strict_types=1);

// The engine's memcached client on several nodes (memcached/test.sh):
//   php ring.php write PREFIX N   stores PREFIX<i> = "php:<i>" through the ring
//   php ring.php read PREFIX N    prints one line per key: "<key> <value or -> <node holding it or ->"
// Nodes come from MEMCACHED_SERVERS, read by the engine's own Config.
require __DIR__ . '/../../engine/src/autoload.php';

use Prutor\Engine\Config;
use Prutor\Engine\Session;

[, $mode, $prefix, $count] = $argv;
$c = Config::fromEnv(getenv());
$ring = Session::memcached($c);
$keys = array_map(static fn (int $i): string => $prefix . $i, range(0, (int) $count - 1));
if ($mode === 'write') {
    foreach ($keys as $i => $k) {
        $ring->set($k, 'php:' . $i, 300) || exit("set $k failed: " . $ring->getResultMessage() . "\n");
    }
    exit(0);
}
$single = [];
foreach ($c->memcachedServers as [$host, $port]) {
    $mc = new Memcached();
    $mc->setOption(Memcached::OPT_COMPRESSION, false);
    $mc->addServer($host, $port);
    $single[$host . ':' . $port] = $mc;
}
foreach ($keys as $k) {
    $v = $ring->get($k);
    $holder = '-';
    foreach ($single as $name => $mc) {
        if ($mc->get($k) !== false) {
            $holder = $name;
        }
    }
    echo $k, ' ', $v === false ? '-' : $v, ' ', $holder, "\n";
}
