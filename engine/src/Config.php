<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Every setting of the engine, read from the environment (CONTRACTS.md defaults).
 */
final class Config
{
    public string $dbHost;
    public int $dbPort;
    public string $dbName;
    public string $dbUser;
    public string $dbPassword;
    public string $memcachedHost;
    public int $memcachedPort;
    /** @var list<array{0: string, 1: int}> memcached nodes: MEMCACHED_SERVERS, else the one host:port */
    public array $memcachedServers;
    public string $sessionSecret;
    public string $varDir;
    public string $engineDir;
    public string $boxRoot;
    public string $cacheDir;
    public int $slots;
    public int $slotBase;
    public int $queueWaitMs;
    public string $isolation;
    public bool $allowPlain;
    public int $maxCodeBytes;
    public int $maxInputBytes;
    /** the largest request body of /compile, /execute, /evaluate (and HAProxy's limit for them) */
    public int $maxBodyBytes;
    /** the largest request body of a Jobe call (Apache's LimitRequestBody) */
    public int $jobeMaxBodyBytes;
    public int $storedOutputBytes;
    public int $evaluatePerMinute;
    public string $launcher;
    public int $cacheMaxFiles;
    public int $cacheMaxBytes;
    public string $environmentsFile;
    /** @var array<string, int> Jobe API keys and the runs per hour each may make (0: no limit) */
    public array $jobeKeys;
    /** @var array<string, int> file PUTs per hour of each key (KEY:RUNS:PUTS; default ENGINE_JOBE_PUTS_PER_RUN x its runs; 0: no limit) */
    public array $jobePutsPerHour;
    /** @var list<string> addresses and CIDR blocks that may call the Jobe API without a key */
    public array $jobeOpenAddresses;
    public int $jobeOpenRatePerHour;
    public int $jobeOpenPutsPerHour;
    /** @var list<string> peers whose X-Forwarded-For is believed (HAProxy; addresses or CIDR blocks) */
    public array $trustedProxies;
    public int $jobeFileMaxBytes;
    public int $jobeFilesMaxBytes;
    public int $jobeFilesMaxFiles;
    /** sandbox slots Jobe runs may hold at once: fewer than $slots, the rest stay for students */
    public int $jobeSlots;
    /** a Jobe run's CPU time while an event is open (a running exam keeps its slots turning over) */
    public int $jobeExamCpuTimeMs;
    /** the class that explains gcc's messages (Help\CompileHelper), or "none" */
    public string $compileHelper;
    /** @var array<string, int> run limits */
    public array $runLimits;
    /** @var array<string, int> compile limits */
    public array $compileLimits;

    private static ?Config $instance = null;

    public static function get(): self
    {
        return self::$instance ??= self::fromEnv(getenv());
    }

    /** @param array<string, string> $env */
    public static function fromEnv(array $env): self
    {
        $s = static fn (string $k, string $d): string => isset($env[$k]) && $env[$k] !== '' ? (string) $env[$k] : $d;
        $i = static fn (string $k, int $d): int => isset($env[$k]) && ctype_digit((string) $env[$k]) ? (int) $env[$k] : $d;
        $c = new self();
        $repo = dirname(__DIR__, 2);
        $c->dbHost = $s('DB_HOST', '127.0.0.1');
        $c->dbPort = $i('DB_PORT', 3307);
        $c->dbName = $s('DB_NAME', 'prutor');
        $c->dbUser = $s('DB_USER', 'prutor');
        $c->dbPassword = $s('DB_PASSWORD', 'prutor-local');
        $c->memcachedHost = $s('MEMCACHED_HOST', '127.0.0.1');
        $c->memcachedPort = $i('MEMCACHED_PORT', 11211);
        $c->memcachedServers = [];
        foreach (array_filter(array_map('trim', explode(',', $s('MEMCACHED_SERVERS', ''))), 'strlen') as $node) {
            if (preg_match('/^([A-Za-z0-9._-]+):(\d{1,5})$/', $node, $m) && (int) $m[2] >= 1 && (int) $m[2] <= 65535) {
                $c->memcachedServers[] = [$m[1], (int) $m[2]];
            } else {
                throw new \InvalidArgumentException('MEMCACHED_SERVERS: "' . $node . '" is not host:port');
            }
        }
        if ($c->memcachedServers === []) {
            $c->memcachedServers = [[$c->memcachedHost, $c->memcachedPort]];
        }
        $c->sessionSecret = $s('SESSION_SECRET', '');
        $c->varDir = rtrim($s('PRUTOR_VAR', $repo . '/var'), '/');
        $c->engineDir = $s('ENGINE_VAR', $c->varDir . '/engine');
        $c->boxRoot = $c->engineDir . '/box';
        $c->cacheDir = $c->engineDir . '/cache';
        $cores = 2;
        // run.sh exports ENGINE_SLOTS; count the cores only when it is missing (mod_php rebuilds Config per request)
        if (!ctype_digit((string) ($env['ENGINE_SLOTS'] ?? '')) && is_readable('/proc/cpuinfo')) {
            $cores = max(1, substr_count((string) file_get_contents('/proc/cpuinfo'), "\nprocessor") + 1);
        }
        $c->slots = max(1, $i('ENGINE_SLOTS', $cores));
        $c->slotBase = $i('SANDBOX_SLOT_BASE', 0);
        $c->queueWaitMs = $i('ENGINE_QUEUE_WAIT_MS', 3000);
        $c->isolation = $s('SANDBOX_ISOLATION', 'auto');
        $c->allowPlain = $s('SANDBOX_ALLOW_PLAIN', '0') === '1';
        // the webapp reads the same MAX_CODE_BYTES: one limit for a save and a compile
        $c->maxCodeBytes = $i('MAX_CODE_BYTES', 65536);
        $c->maxInputBytes = $i('ENGINE_MAX_INPUT_BYTES', 65536);
        // code and input, and room for JSON's escapes and the other fields (bin/prutor: the same rule)
        $c->maxBodyBytes = $i('ENGINE_MAX_BODY_BYTES', $c->maxCodeBytes + $c->maxInputBytes + 65536);
        $c->jobeMaxBodyBytes = $i('ENGINE_JOBE_MAX_BODY_BYTES', 4 * 1024 * 1024);
        $c->storedOutputBytes = $i('ENGINE_STORED_OUTPUT_BYTES', 16384);
        $c->evaluatePerMinute = $i('ENGINE_EVALUATE_PER_MINUTE', 12);
        $c->launcher = $s('SANDBOX_LAUNCHER', '/usr/local/lib/prutor/prutor-box');
        $c->cacheMaxFiles = $i('ENGINE_CACHE_MAX_FILES', 5000);
        $c->cacheMaxBytes = $i('ENGINE_CACHE_MAX_BYTES', 512 * 1024 * 1024);
        $nosql = $repo . '/nosql/environments.json';
        $c->environmentsFile = $s('ENGINE_ENVIRONMENTS_FILE', is_file($nosql) ? $nosql : $repo . '/engine/config/environments.json');
        $list = static fn (string $v): array => array_values(array_filter(array_map('trim', explode(',', $v)), 'strlen'));
        $c->jobeKeys = [];
        $c->jobePutsPerHour = [];
        // CodeRunner PUTs a file only after a run answered 404, once per missing file of the question
        $putsPerRun = $i('ENGINE_JOBE_PUTS_PER_RUN', 4);
        foreach ($list($s('ENGINE_JOBE_KEYS', '')) as $entry) {
            // KEY, KEY:RUNS_PER_HOUR or KEY:RUNS_PER_HOUR:PUTS_PER_HOUR
            [$key, $rate, $puts] = array_pad(explode(':', $entry, 3), 3, '');
            $c->jobeKeys[$key] = ctype_digit($rate) ? (int) $rate : $i('ENGINE_JOBE_RATE_PER_HOUR', 600);
            $c->jobePutsPerHour[$key] = ctype_digit($puts) ? (int) $puts : $putsPerRun * $c->jobeKeys[$key];
        }
        $c->jobeOpenAddresses = $list($s('ENGINE_JOBE_OPEN_ADDRESSES', ''));
        $c->jobeOpenRatePerHour = $i('ENGINE_JOBE_OPEN_RATE_PER_HOUR', 0);
        $c->jobeOpenPutsPerHour = $i('ENGINE_JOBE_OPEN_PUTS_PER_HOUR', $putsPerRun * $c->jobeOpenRatePerHour);
        $c->trustedProxies = $list($s('ENGINE_TRUSTED_PROXIES', '127.0.0.0/8,::1'));
        $c->jobeFileMaxBytes = $i('ENGINE_JOBE_FILE_MAX_BYTES', 8 * 1024 * 1024);
        $c->jobeFilesMaxBytes = $i('ENGINE_JOBE_FILES_MAX_BYTES', 256 * 1024 * 1024);
        $c->jobeFilesMaxFiles = $i('ENGINE_JOBE_FILES_MAX_FILES', 20000);
        // half the slots by default; at least one slot always stays for students (with a
        // single slot there is nothing to reserve, and Jobe shares it)
        $c->jobeSlots = max(1, min($c->slots - 1, $i('ENGINE_JOBE_SLOTS', intdiv($c->slots, 2))));
        $c->jobeExamCpuTimeMs = $i('ENGINE_JOBE_EXAM_CPU_TIME_MS', 5000);
        $c->compileHelper = $s('ENGINE_COMPILE_HELPER', Help\RuleBasedHelper::class);
        $c->runLimits = [
            'CPU_TIME_MS' => $i('SANDBOX_CPU_TIME_MS', 2000),
            'WALL_TIME_MS' => $i('SANDBOX_WALL_TIME_MS', 0),
            'MEMORY_KB' => $i('SANDBOX_MEMORY_KB', 262144),
            'FILE_SIZE_KB' => $i('SANDBOX_FILE_SIZE_KB', 16384),
            'NPROC' => $i('SANDBOX_NPROC', 32),
            'NOFILE' => $i('SANDBOX_NOFILE', 64),
            'OUTPUT_BYTES' => $i('SANDBOX_OUTPUT_BYTES', 65536),
        ];
        $c->compileLimits = [
            'CPU_TIME_MS' => $i('SANDBOX_COMPILE_CPU_TIME_MS', 10000),
            'WALL_TIME_MS' => $i('SANDBOX_COMPILE_WALL_TIME_MS', 20000),
            'MEMORY_KB' => $i('SANDBOX_COMPILE_MEMORY_KB', 1048576),
            'FILE_SIZE_KB' => $i('SANDBOX_COMPILE_FILE_SIZE_KB', 65536),
            'NPROC' => $i('SANDBOX_COMPILE_NPROC', 64),
            'NOFILE' => $i('SANDBOX_COMPILE_NOFILE', 128),
            'OUTPUT_BYTES' => $i('SANDBOX_COMPILE_OUTPUT_BYTES', 65536),
        ];
        return $c;
    }
}
