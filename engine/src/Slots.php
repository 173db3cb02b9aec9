<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Admission control: a bounded set of sandbox slots, one flock each. A request waits
 * up to ENGINE_QUEUE_WAIT_MS for a free slot, then gets 503 busy with Retry-After.
 * Background work (the automatic grader) never takes the last free slot, so a student
 * always finds the one it left; with a single slot it shares it.
 */
final class Slots
{
    /** @var array<int, resource> */
    private static array $held = [];

    public static function acquire(Config $c, bool $background = false): int
    {
        $t0 = hrtime(true);
        $dir = $c->engineDir . '/locks';
        $deadline = $t0 + $c->queueWaitMs * 1_000_000;
        $start = getmypid() % $c->slots;
        $waiting = null; // set once the first pass found no free slot: this request is in the queue
        try {
            do {
                for ($k = 0; $k < $c->slots; $k++) {
                    $slot = $c->slotBase + ($start + $k) % $c->slots;
                    $fh = @fopen($dir . '/slot' . $slot, 'c');
                    if ($fh === false) {
                        throw new HttpError(500, 'the engine cannot open its slot locks');
                    }
                    if (flock($fh, LOCK_EX | LOCK_NB)) {
                        if (!$background || $c->slots < 2 || self::anotherFree($c, $slot)) {
                            self::$held[$slot] = $fh;
                            return $slot;
                        }
                        flock($fh, LOCK_UN);
                    }
                    fclose($fh);
                }
                $waiting ??= Metrics::waiting($c, 'slots');
                usleep(random_int(5000, 15000));
            } while (hrtime(true) < $deadline);
            Metrics::inc('busy');
            Metrics::refused('slots');
            throw new HttpError(503, 'busy', ['Retry-After' => '1']);
        } finally {
            Metrics::waited($waiting ?? '', 'slots', (hrtime(true) - $t0) / 1e9);
        }
    }

    /** Whether a slot other than $mine is free at this moment. */
    private static function anotherFree(Config $c, int $mine): bool
    {
        for ($k = 0; $k < $c->slots; $k++) {
            $slot = $c->slotBase + $k;
            $fh = $slot === $mine ? null : self::lockIfFree($c, $slot);
            if ($fh !== null) {
                flock($fh, LOCK_UN);
                fclose($fh);
                return true;
            }
        }
        return false;
    }

    /** @return resource|null the slot's lock file, locked by us, or null if it is taken (or cannot be opened) */
    private static function lockIfFree(Config $c, int $slot): mixed
    {
        $fh = @fopen($c->engineDir . '/locks/slot' . $slot, 'c');
        if ($fh === false) {
            return null;
        }
        if (flock($fh, LOCK_EX | LOCK_NB)) {
            return $fh;
        }
        fclose($fh);
        return null;
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
        for ($k = 0; $k < $c->slots; $k++) {
            $slot = $c->slotBase + $k;
            $fh = self::lockIfFree($c, $slot);
            if ($fh !== null) {
                self::$held[$slot] = $fh;
                return $slot;
            }
        }
        return null;
    }
}
