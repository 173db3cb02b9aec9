<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;

/**
 * The Jobe API's routes wired to the callers' file spaces and budgets, over HTTP but
 * without the stack or a sandbox: the engine's public/index.php in PHP's built-in server
 * (its own process, APCu and folder; counts in its APCu, memcached being a closed port).
 * A run's support files are looked up before Jobe's overload hook answers, so a run of the
 * hook tells whether its file_list was found.
 */
final class JobeRouterTest extends TestCase
{
    private const API = '/jobe/index.php/restapi/';
    /** @var resource|null */
    private static $server = null;
    private static string $url = '';
    private static string $var = '';
    /** @var array{0: string, 1: string, 2: string} keys A and B (600 runs an hour), C (1 run, 2 PUTs) */
    private static array $keys = ['', '', ''];

    public static function setUpBeforeClass(): void
    {
        if (!function_exists('curl_init')) {
            self::markTestSkipped('php-curl is missing');
        }
        self::$var = sys_get_temp_dir() . '/prutor-jobe-router-' . getmypid();
        @mkdir(self::$var . '/engine', 0700, true);
        self::$keys = [bin2hex(random_bytes(16)), bin2hex(random_bytes(16)), bin2hex(random_bytes(16))];
        $port = self::freePort();
        $env = ['PATH' => '/usr/bin:/bin', 'PRUTOR_VAR' => self::$var, 'ENGINE_SLOTS' => '2', 'MEMCACHED_SERVERS' => '127.0.0.1:' . self::freePort(),
            'ENGINE_JOBE_KEYS' => self::$keys[0] . ':600,' . self::$keys[1] . ':600,' . self::$keys[2] . ':1:2'];
        $p = proc_open([PHP_BINARY, '-d', 'apc.enable_cli=1', '-S', '127.0.0.1:' . $port, dirname(__DIR__, 2) . '/public/index.php'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, null, $env);
        if (!is_resource($p)) {
            self::markTestSkipped('could not start PHP\'s built-in server');
        }
        self::$server = $p;
        self::$url = 'http://127.0.0.1:' . $port;
        for ($i = 0; $i < 100 && @fsockopen('127.0.0.1', $port, $errno, $errstr, 0.1) === false; $i++) {
            usleep(20_000);
        }
    }

    public static function tearDownAfterClass(): void
    {
        if (is_resource(self::$server)) {
            proc_terminate(self::$server);
            proc_close(self::$server);
        }
        array_map('unlink', glob(self::$var . '/engine/jobe-files/{,.}[!.]*', GLOB_BRACE) ?: []);
        array_map('unlink', glob(self::$var . '/telemetry/*') ?: []);
        foreach (['/engine/jobe-files', '/engine', '/telemetry', ''] as $d) {
            @rmdir(self::$var . $d);
        }
    }

    private static function freePort(): int
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $name = (string) stream_socket_get_name($s ?: throw new \RuntimeException('no free port'), false);
        fclose($s);
        return (int) substr($name, strrpos($name, ':') + 1);
    }

    /**
     * @param array<string, mixed>|null $body
     * @return array{0: int, 1: mixed, 2: array<string, string>} status, decoded body, headers (lower-case names)
     */
    private static function call(string $key, string $method, string $resource, ?array $body = null): array
    {
        $ch = curl_init(self::$url . self::API . $resource);
        $headers = [];
        $h = ['X-API-KEY: ' . $key];
        if ($body !== null) {
            $h[] = 'Content-Type: application/json';
            curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($body));
        }
        curl_setopt_array($ch, [CURLOPT_CUSTOMREQUEST => $method, CURLOPT_NOBODY => $method === 'HEAD', CURLOPT_RETURNTRANSFER => true,
            CURLOPT_HTTPHEADER => $h, CURLOPT_TIMEOUT => 10,
            CURLOPT_HEADERFUNCTION => static function ($c, string $line) use (&$headers): int {
                $kv = explode(':', $line, 2);
                if (count($kv) === 2) {
                    $headers[strtolower(trim($kv[0]))] = trim($kv[1]);
                }
                return strlen($line);
            }]);
        $out = (string) curl_exec($ch);
        $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        curl_close($ch);
        return [$status, json_decode($out, true), $headers];
    }

    public function testAnotherKeysFileIsNotFoundInHeadOrRun(): void
    {
        [$a, $b] = self::$keys;
        $id = md5('support ' . bin2hex(random_bytes(4)));
        $hook = static fn (string $fileId): array => ['run_spec' => ['language_id' => 'python3',
            'sourcecode' => '!** TESTING OVERLOAD EXCEPTION **!', 'file_list' => [[$fileId, 'data.txt']]]];
        $this->assertSame(204, self::call($a, 'PUT', 'files/' . $id, ['file_contents' => base64_encode('A')])[0]);
        $this->assertSame(204, self::call($a, 'HEAD', 'files/' . $id)[0]);
        $this->assertSame(404, self::call($b, 'HEAD', 'files/' . $id)[0], "B does not see A's file");
        $this->assertSame([404, 'One or more of the specified files is missing/unavailable'],
            array_slice(self::call($b, 'POST', 'runs', $hook($id)), 0, 2), "nor can B's run use it");
        $r = self::call($a, 'POST', 'runs', $hook($id));
        $this->assertSame([200, 21], [$r[0], $r[1]['outcome'] ?? null], "A's run finds it");
        $this->assertSame(400, self::call($a, 'PUT', 'files/..x1234567', ['file_contents' => ''])[0], 'ids stay letters and digits');
        $this->assertSame(1, count(glob(self::$var . '/engine/jobe-files/k*-' . $id) ?: []), "stored once, in the key's space");
    }

    public function testPutsPastTheKeysBudgetGet429WithRetryAfter(): void
    {
        $c = self::$keys[2];
        $put = static fn (): array => self::call($c, 'PUT', 'files/ratelimit' . bin2hex(random_bytes(4)), ['file_contents' => base64_encode('x')]);
        $this->assertSame([204, 204], [$put()[0], $put()[0]]);
        [$status, $body, $headers] = $put();
        $this->assertSame([429, 'Max file PUT rate for this server exceeded'], [$status, $body], 'a JSON string, as Jobe answers errors');
        $this->assertGreaterThan(0, (int) ($headers['retry-after'] ?? 0));
        $this->assertSame(404, self::call($c, 'HEAD', 'files/ratelimit00000000')[0], 'HEAD is not counted (404, not 429)');
        $this->assertSame(204, self::call(self::$keys[0], 'PUT', 'files/otherkey1', ['file_contents' => base64_encode('x')])[0], 'another key is not affected');
    }
}
