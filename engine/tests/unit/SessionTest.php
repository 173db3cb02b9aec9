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
