<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Api;
use Prutor\Engine\Config;
use Prutor\Engine\Session;

final class SessionTest extends TestCase
{
    private const SID = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

    public function testSignatureIsBase64UrlHmacWithoutPadding(): void
    {
        $cookie = Session::sign(self::SID, 's3cret');
        $expect = rtrim(strtr(base64_encode(hash_hmac('sha256', self::SID, 's3cret', true)), '+/', '-_'), '=');
        $this->assertSame(self::SID . '.' . $expect, $cookie);
        $this->assertSame(self::SID, Session::verify($cookie, 's3cret'));
    }

    public function testDurableCopyKeyIsTheWebappsSha256OfTheSid(): void
    {
        // the same vector as webapp/test/unit/session.test.js
        $this->assertSame('RqIZl4LIgn8KxW9QO-nTnv7pf0CnNrksx9fF-CXP2FE',
            Session::storeKey('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ'));
    }

    public function testBadSignaturesAreRefused(): void
    {
        $cookie = Session::sign(self::SID, 's3cret');
        $this->assertNull(Session::verify($cookie, 'other'));
        $this->assertNull(Session::verify(substr($cookie, 0, -1) . 'x', 's3cret'));
        $this->assertNull(Session::verify(self::SID, 's3cret'));
        $this->assertNull(Session::verify($cookie, ''));
        $this->assertNull(Session::verify('../etc.passwd', 's3cret'));
    }

    public function testNoCookieMeansNoSession(): void
    {
        $c = Config::fromEnv(['SESSION_SECRET' => 'x']);
        $this->assertNull(Session::load($c, 'other=1; prutor.sid=garbage'));
    }

    /**
     * A session revoked while memcached could not take the delete: its copy,
     * still in memcached, is refused while its id is in session_revocations. A private
     * memcached; the table's ids as the APCu cache holds them (no database needed).
     */
    public function testACopyWhoseRevocationIsPendingIsRefused(): void
    {
        if (!is_executable('/usr/bin/memcached')) {
            $this->markTestSkipped('no /usr/bin/memcached');
        }
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr((string) stream_socket_get_name($probe, false), strlen('127.0.0.1:'));
        fclose($probe);
        $argv = ['/usr/bin/memcached', '-l', '127.0.0.1', '-p', (string) $port, '-U', '0', '-m', '8'];
        if (posix_geteuid() === 0) {
            array_push($argv, '-u', 'nobody'); // memcached refuses to run as root
        }
        $proc = proc_open($argv, [], $pipes);
        $mcRef = new \ReflectionProperty(Session::class, 'mc');
        try {
            for ($i = 0; $i < 100 && !($probe = @fsockopen('127.0.0.1', $port, $errno, $errstr, 0.1)); $i++) {
                usleep(20000); // a first refused connect would disable the server for a while
            }
            $mc = new \Memcached();
            $mc->addServer('127.0.0.1', $port);
            $this->assertTrue($mc->set('sess:' . self::SID, '{"uid":7,"role":"student","csrf":"x"}', 60), 'the private memcached answers');
            $mcRef->setValue(null, $mc);
            $c = Config::fromEnv(['SESSION_SECRET' => 's3cret']);
            $cookie = 'prutor.sid=' . Session::sign(self::SID, 's3cret');

            apcu_store(Session::REVOKED_CACHE_KEY, [Session::storeKey('B' . substr(self::SID, 1)) => true], 60);
            $this->assertSame(7, Session::load($c, $cookie)?->userId(), 'another session\'s pending revocation changes nothing');
            apcu_store(Session::REVOKED_CACHE_KEY, [Session::storeKey(self::SID) => true], 60);
            $this->assertNull(Session::load($c, $cookie), 'the copy of a revoked session is refused');
        } finally {
            apcu_delete(Session::REVOKED_CACHE_KEY);
            $mcRef->setValue(null, null);
            proc_terminate($proc, 9); // SIGTERM waits about a second for its clients
            proc_close($proc);
        }
    }

    public function testConfigDefaultsFollowContracts(): void
    {
        $c = Config::fromEnv([]);
        $this->assertSame(3307, $c->dbPort);
        $this->assertSame(11211, $c->memcachedPort);
        $this->assertSame('prutor', $c->dbName);
        $this->assertSame(2000, $c->runLimits['CPU_TIME_MS']);
        $this->assertSame([], $c->jobeKeys);
        $this->assertSame(['a' => 600, 'b' => 5], Config::fromEnv(['ENGINE_JOBE_KEYS' => 'a, b:5'])->jobeKeys, 'KEY or KEY:RUNS_PER_HOUR');
    }

    public function testBodyParsingAcceptsJsonAndForms(): void
    {
        $this->assertSame(['assignment_id' => 3], Api::parseBody('application/json', '{"assignment_id":3}'));
        $this->assertSame(['assignment_id' => '3', 'code' => 'int x;'], Api::parseBody('application/x-www-form-urlencoded', 'assignment_id=3&code=int+x%3B'));
        $this->assertSame(26, strlen(Api::ulid()));
    }
}
