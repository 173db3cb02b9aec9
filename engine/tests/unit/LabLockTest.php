<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use Prutor\Engine\ClientAddress;
use PHPUnit\Framework\TestCase;
use Prutor\Engine\LabLock;

final class LabLockTest extends TestCase
{
    public function testRangesMatchIpv4Ipv6AndMappedAddresses(): void
    {
        $this->assertTrue(LabLock::inRanges('10.20.3.4', '10.20.0.0/16'));
        $this->assertFalse(LabLock::inRanges('10.21.3.4', '10.20.0.0/16'));
        $this->assertTrue(LabLock::inRanges('192.168.5.7', '10.0.0.0/8, 192.168.5.7'));
        $this->assertFalse(LabLock::inRanges('192.168.5.8', '10.0.0.0/8, 192.168.5.7'));
        $this->assertTrue(LabLock::inRanges('10.0.0.129', '10.0.0.128/25'));
        $this->assertFalse(LabLock::inRanges('10.0.0.127', '10.0.0.128/25'));
        $this->assertTrue(LabLock::inRanges('::ffff:10.1.2.3', '10.0.0.0/8'));
        $this->assertTrue(LabLock::inRanges('2001:db8::5', '2001:db8::/48'));
        $this->assertFalse(LabLock::inRanges('2001:db9::5', '2001:db8::/48'));
        $this->assertFalse(LabLock::inRanges('10.1.2.3', '2001:db8::/48'));
        $this->assertTrue(LabLock::inRanges('8.8.8.8', ''), 'no ranges: any address');
        $this->assertFalse(LabLock::inRanges('not-an-ip', '10.0.0.0/8'));
    }

    public function testForwardedAddressIsBelievedOnlyFromATrustedProxy(): void
    {
        $trusted = ['127.0.0.0/8', '::1'];
        $this->assertSame('10.9.9.9', ClientAddress::of(['REMOTE_ADDR' => '127.0.0.1', 'HTTP_X_FORWARDED_FOR' => '10.9.9.9'], $trusted));
        // the last entry is the one the proxy added; what the client wrote before it is ignored
        $this->assertSame('10.1.1.1', ClientAddress::of(['REMOTE_ADDR' => '127.0.0.1', 'HTTP_X_FORWARDED_FOR' => '10.9.9.9, 10.1.1.1'], $trusted));
        // a client that reaches the engine directly cannot choose its address
        $this->assertSame('172.16.0.5', ClientAddress::of(['REMOTE_ADDR' => '172.16.0.5', 'HTTP_X_FORWARDED_FOR' => '10.9.9.9'], $trusted));
        $this->assertSame('127.0.0.1', ClientAddress::of(['REMOTE_ADDR' => '127.0.0.1', 'HTTP_X_FORWARDED_FOR' => 'garbage'], $trusted));
    }
}
