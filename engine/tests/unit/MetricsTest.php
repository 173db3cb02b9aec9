<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\HttpError;
use Prutor\Engine\Metrics;
use Prutor\Engine\Slots;

/**
 * GET /metrics' exposition (Prometheus text 0.0.4): cumulative histogram buckets, sums in
 * seconds, labels from closed sets only; the slots busy and the queue read as they are now.
 */
final class MetricsTest extends TestCase
{
    private string $dir;
    private Config $c;

    protected function setUp(): void
    {
        if (!function_exists('apcu_enabled') || !apcu_enabled()) {
            $this->markTestSkipped('APCu is not enabled in this PHP (engine/test.sh turns it on)');
        }
        apcu_clear_cache();
        $this->dir = sys_get_temp_dir() . '/metrics' . bin2hex(random_bytes(4));
        mkdir($this->dir . '/locks', 0700, true);
        $this->c = Config::fromEnv(['ENGINE_VAR' => $this->dir, 'ENGINE_SLOTS' => '2', 'SANDBOX_SLOT_BASE' => '0',
            'ENGINE_QUEUE_WAIT_MS' => '150', 'ENGINE_JOBE_SLOTS' => '1']);
    }

    protected function tearDown(): void
    {
        if (isset($this->dir)) {
            array_map('unlink', glob($this->dir . '/locks/*') ?: []);
            rmdir($this->dir . '/locks');
            rmdir($this->dir);
        }
    }

    /** @return array<string, float> series => value */
    private function scrape(): array
    {
        $out = [];
        foreach (explode("\n", Metrics::prometheus($this->c)) as $line) {
            if ($line === '' || $line[0] === '#') {
                continue;
            }
            $this->assertMatchesRegularExpression('/^[a-z_]+(\{([a-z_]+="[A-Za-z0-9_.+-]*",?)*\})? -?[0-9.]+$/', $line, 'a well-formed sample line');
            [$series, $value] = explode(' ', $line);
            $out[$series] = (float) $value;
        }
        return $out;
    }

    public function testHistogramsAreCumulativeWithSumAndCountInSeconds(): void
    {
        Metrics::runSeconds('c', 0.003);
        Metrics::runSeconds('c', 0.2);
        Metrics::runSeconds('c', 42.0);
        $m = $this->scrape();
        $this->assertSame(1.0, $m['prutor_engine_run_seconds_bucket{language="c",le="0.005"}']);
        $this->assertSame(1.0, $m['prutor_engine_run_seconds_bucket{language="c",le="0.1"}']);
        $this->assertSame(2.0, $m['prutor_engine_run_seconds_bucket{language="c",le="0.25"}']);
        $this->assertSame(2.0, $m['prutor_engine_run_seconds_bucket{language="c",le="10"}']);
        $this->assertSame(3.0, $m['prutor_engine_run_seconds_bucket{language="c",le="+Inf"}']);
        $this->assertSame(3.0, $m['prutor_engine_run_seconds_count{language="c"}']);
        $this->assertEqualsWithDelta(42.203, $m['prutor_engine_run_seconds_sum{language="c"}'], 0.0001);
    }

    public function testRunsAreCountedByKindLanguageAndVerdictAndHostileLabelsAreNeutered(): void
    {
        Metrics::run('execute', 'c', 'accepted');
        Metrics::run('execute', 'c', 'accepted');
        Metrics::run('jobe', "py\"}\nevil_metric 1 {x=\"", '15');
        $text = Metrics::prometheus($this->c);
        $this->assertStringContainsString('prutor_engine_runs_total{kind="execute",language="c",verdict="accepted"} 2', $text);
        $this->assertStringNotContainsString('evil_metric 1', $text, 'a label value cannot start a line of its own');
        $this->scrape();
    }

    public function testSlotsBusyAndTheQueueAreWhatTheyAreNow(): void
    {
        $m = $this->scrape();
        $this->assertSame(2.0, $m['prutor_engine_slots{lane="slots"}']);
        $this->assertSame(0.0, $m['prutor_engine_slots_busy{lane="slots"}']);
        $a = Slots::acquire($this->c);
        $b = Slots::acquire($this->c);
        // a third request waits, then is refused; meanwhile it is in the queue
        $key = Metrics::waiting($this->c, 'slots');
        $m = $this->scrape();
        $this->assertSame(2.0, $m['prutor_engine_slots_busy{lane="slots"}'], 'both slots held by locks');
        $this->assertSame(1.0, $m['prutor_engine_queue_length{lane="slots"}']);
        Metrics::waited($key, 'slots', 0.01);
        try {
            Slots::acquire($this->c);
            $this->fail('a third request got a slot of two');
        } catch (HttpError $e) {
            $this->assertSame(503, $e->status);
        }
        $m = $this->scrape();
        $this->assertSame(0.0, $m['prutor_engine_queue_length{lane="slots"}'], 'a refused wait leaves the queue');
        $this->assertSame(1.0, $m['prutor_engine_busy_total{lane="slots"}']);
        $this->assertSame(4.0, $m['prutor_engine_slot_wait_seconds_count{lane="slots"}'], 'every wait timed: two granted at once, the one above, the refused one');
        Slots::release($a);
        Slots::release($b);
        $this->assertSame(0.0, $this->scrape()['prutor_engine_slots_busy{lane="slots"}']);
    }
}
