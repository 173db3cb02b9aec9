<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\HttpError;
use Prutor\Engine\Lane;

/** A lane of N lets N requests in at once; the next one waits ENGINE_QUEUE_WAIT_MS, then 503. */
final class LaneTest extends TestCase
{
    public function testALaneHoldsItsSizeAndRefusesTheNextAfterTheWait(): void
    {
        $dir = sys_get_temp_dir() . '/lane' . bin2hex(random_bytes(4));
        mkdir($dir . '/locks', 0700, true);
        $c = Config::fromEnv(['ENGINE_VAR' => $dir, 'ENGINE_QUEUE_WAIT_MS' => '200']);
        try {
            $first = new Lane($c, 'jobe', 1);
            $first->enter();
            $second = new Lane($c, 'jobe', 1);
            $t0 = microtime(true);
            try {
                $second->enter();
                $this->fail('a lane of one let a second request in');
            } catch (HttpError $e) {
                $this->assertSame(503, $e->status);
                $this->assertGreaterThanOrEqual(0.2, microtime(true) - $t0, 'it waited ENGINE_QUEUE_WAIT_MS first');
            }
            $other = new Lane($c, 'other', 1);
            $other->enter();
            $other->leave();
            $first->leave();
            $second->enter();
            $second->leave();
            $this->addToAssertionCount(1);
        } finally {
            array_map('unlink', glob($dir . '/locks/*') ?: []);
            rmdir($dir . '/locks');
            rmdir($dir);
        }
    }
}
