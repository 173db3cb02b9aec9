<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\Jobe\Router;

/**
 * The Jobe API's routes wired to the callers' file spaces and budgets, without a sandbox:
 * a run's support files are looked up before Jobe's overload hook answers, so a run of the
 * hook tells whether its file_list was found. Files in a folder of the test's own.
 */
final class JobeRouterTest extends TestCase
{
    private const API = '/jobe/index.php/restapi/';
    private string $var;
    private Config $c;
    private string $keyA;
    private string $keyB;
    private string $keyC;

    protected function setUp(): void
    {
        if (!function_exists('apcu_enabled') || !apcu_enabled()) {
            $this->markTestSkipped('APCu is not enabled for the CLI (engine/test.sh enables it)');
        }
        $this->var = sys_get_temp_dir() . '/prutor-jobe-router-' . getmypid();
        @mkdir($this->var . '/engine', 0700, true);
        [$this->keyA, $this->keyB, $this->keyC] = [bin2hex(random_bytes(16)), bin2hex(random_bytes(16)), bin2hex(random_bytes(16))];
        $env = ['PRUTOR_VAR' => $this->var, 'ENGINE_JOBE_KEYS' => "{$this->keyA}:600,{$this->keyB}:600,{$this->keyC}:1:2"];
        // the counts go to the stack's memcached when one answers (MEMCACHED_*), else to APCu: fresh keys either way
        foreach (['MEMCACHED_HOST', 'MEMCACHED_PORT', 'MEMCACHED_SERVERS'] as $k) {
            if (getenv($k) !== false) {
                $env[$k] = (string) getenv($k);
            }
        }
        $this->c = Config::fromEnv($env);
    }

    protected function tearDown(): void
    {
        array_map('unlink', glob($this->var . '/engine/jobe-files/{,.}[!.]*', GLOB_BRACE) ?: []);
        @rmdir($this->var . '/engine/jobe-files');
        @rmdir($this->var . '/engine');
        @rmdir($this->var);
    }

    /**
     * @param array<string, mixed>|null $body
     * @return array{0: int, 1: mixed, 2: array<string, string>}
     */
    private function call(string $key, string $method, string $resource, ?array $body = null): array
    {
        return (new Router($this->c))->route($method, self::API . $resource, ['HTTP_X_API_KEY' => $key, 'REMOTE_ADDR' => '198.51.100.20'],
            $body === null ? '' : (string) json_encode($body));
    }

    public function testAnotherKeysFileIsNotFoundInHeadOrRun(): void
    {
        $id = md5('support ' . bin2hex(random_bytes(4)));
        $hook = static fn (string $fileId): array => ['run_spec' => ['language_id' => 'python3',
            'sourcecode' => '!** TESTING OVERLOAD EXCEPTION **!', 'file_list' => [[$fileId, 'data.txt']]]];
        $this->assertSame(204, $this->call($this->keyA, 'PUT', 'files/' . $id, ['file_contents' => base64_encode('A')])[0]);
        $this->assertSame(204, $this->call($this->keyA, 'HEAD', 'files/' . $id)[0]);
        $this->assertSame(404, $this->call($this->keyB, 'HEAD', 'files/' . $id)[0], "B does not see A's file");
        $this->assertSame([404, 'One or more of the specified files is missing/unavailable'],
            array_slice($this->call($this->keyB, 'POST', 'runs', $hook($id)), 0, 2), "nor can B's run use it");
        $r = $this->call($this->keyA, 'POST', 'runs', $hook($id));
        $this->assertSame([200, 21], [$r[0], $r[1]['outcome'] ?? null], "A's run finds it");
        $this->assertSame(400, $this->call($this->keyA, 'PUT', 'files/..x1234567', ['file_contents' => ''])[0], 'ids stay letters and digits');
        $this->assertSame(1, count(glob($this->var . '/engine/jobe-files/k*-' . $id) ?: []), 'stored once, under the key\'s space');
    }

    public function testPutsPastTheKeysBudgetGet429WithRetryAfter(): void
    {
        $put = fn (): array => $this->call($this->keyC, 'PUT', 'files/ratelimit' . bin2hex(random_bytes(4)), ['file_contents' => base64_encode('x')]);
        $this->assertSame([204, 204], [$put()[0], $put()[0]]);
        [$status, $body, $headers] = $put();
        $this->assertSame([429, 'Max file PUT rate for this server exceeded'], [$status, $body], 'a JSON string, as Jobe answers errors');
        $this->assertGreaterThan(0, (int) ($headers['Retry-After'] ?? 0));
        $this->assertSame(404, $this->call($this->keyC, 'HEAD', 'files/ratelimit00000000')[0], 'HEAD is not counted (404, not 429)');
        $this->assertSame(204, $this->call($this->keyA, 'PUT', 'files/otherkey1', ['file_contents' => base64_encode('x')])[0], 'another key is not affected');
    }
}
