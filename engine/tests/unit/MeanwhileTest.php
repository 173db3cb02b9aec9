<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\Meanwhile;
use Prutor\Engine\Sandbox;

final class MeanwhileTest extends TestCase
{
    public function testTheWorkRunsOnceWhoeverInvokesIt(): void
    {
        $runs = 0;
        $m = new Meanwhile(function () use (&$runs): void {
            $runs++;
        });
        $m();
        $m();
        $this->assertSame(1, $runs);
    }

    public function testAFailureIsThrownOnceAndNotRetried(): void
    {
        $runs = 0;
        $m = new Meanwhile(function () use (&$runs): void {
            $runs++;
            throw new \RuntimeException('the window closed');
        });
        try {
            $m();
            $this->fail('the failure must be thrown');
        } catch (\RuntimeException $e) {
            $this->assertSame('the window closed', $e->getMessage());
        }
        $m();
        $this->assertSame(1, $runs);
    }

    /**
     * What the work throws during a launch is thrown only once the launcher has finished:
     * the slot must never be given back with a launch still running in it.
     */
    public function testAFailureDuringALaunchIsThrownAfterTheLauncherHasFinished(): void
    {
        $dir = sys_get_temp_dir() . '/prutor-meanwhile-' . getmypid();
        @mkdir($dir . '/io', 0700, true);
        $launcher = $dir . '/launcher';
        // a stand-in for prutor-box: works a while, leaves a mark, then reports on fd 3
        file_put_contents($launcher, "#!/bin/sh\nsleep 0.3\ntouch '$dir/finished'\necho '{\"status\":\"exited\",\"exit\":0}' >&3\n");
        chmod($launcher, 0755);
        $box = new Sandbox(Config::fromEnv(['ENGINE_VAR' => $dir, 'SANDBOX_LAUNCHER' => $launcher]));
        $during = null;
        $m = new Meanwhile(function () use ($dir, &$during): void {
            $during = is_file($dir . '/finished');
            throw new \RuntimeException('the INSERT failed');
        });
        try {
            $box->exec(0, 'run', ['CPU_TIME_MS' => 1000, 'MEMORY_KB' => 65536, 'FILE_SIZE_KB' => 1024, 'NPROC' => 1,
                'NOFILE' => 16, 'OUTPUT_BYTES' => 1024], ['./prog'], '', 'ns', $m);
            $this->fail('the failure must be thrown');
        } catch (\RuntimeException $e) {
            $this->assertSame('the INSERT failed', $e->getMessage());
            $this->assertFalse($during, 'the work ran while the launcher worked');
            $this->assertFileExists($dir . '/finished', 'the launcher had finished when the failure was thrown');
        } finally {
            array_map('unlink', glob($dir . '/io/*') ?: []);
            @rmdir($dir . '/io');
            @unlink($dir . '/finished');
            @unlink($launcher);
            @rmdir($dir);
        }
    }
}
