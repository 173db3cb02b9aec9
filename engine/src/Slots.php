<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Admission control: a bounded set of sandbox slots, one flock each. A request waits
 * up to ENGINE_QUEUE_WAIT_MS for a free slot, then gets 503 busy with Retry-After.
 */
final class Slots
{
    /** @var array<int, resource> */
    private static array $held = [];

    public static function acquire(Config $c): int
    {
        $dir = $c->engineDir . '/locks';
        $deadline = hrtime(true) + $c->queueWaitMs * 1_000_000;
        $start = getmypid() % $c->slots;
        do {
            for ($k = 0; $k < $c->slots; $k++) {
                $slot = $c->slotBase + ($start + $k) % $c->slots;
                $fh = @fopen($dir . '/slot' . $slot, 'c');
                if ($fh === false) {
                    throw new HttpError(500, 'the engine cannot open its slot locks');
                }
                if (flock($fh, LOCK_EX | LOCK_NB)) {
                    self::$held[$slot] = $fh;
                    return $slot;
                }
                fclose($fh);
            }
            usleep(random_int(5000, 15000));
        } while (hrtime(true) < $deadline);
        Metrics::inc('busy');
        throw new HttpError(503, 'busy', ['Retry-After' => '1']);
    }

    public static function release(int $slot): void
    {
        if (isset(self::$held[$slot])) {
            flock(self::$held[$slot], LOCK_UN);
            fclose(self::$held[$slot]);
            unset(self::$held[$slot]);
        }
    }

    public static function tryAcquire(Config $c): ?int
    {
        $dir = $c->engineDir . '/locks';
        for ($k = 0; $k < $c->slots; $k++) {
            $slot = $c->slotBase + $k;
            $fh = @fopen($dir . '/slot' . $slot, 'c');
            if ($fh !== false && flock($fh, LOCK_EX | LOCK_NB)) {
                self::$held[$slot] = $fh;
                return $slot;
            }
            if ($fh !== false) {
                fclose($fh);
            }
        }
        return null;
    }
}
