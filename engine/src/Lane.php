<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * A bounded share of the sandbox slots for one kind of work: at most $size of its
 * requests hold (or wait for) slots at once, one flock each on locks/<name>N. The Jobe
 * API's lane (ENGINE_JOBE_SLOTS, fewer than ENGINE_SLOTS) leaves the other slots to
 * students: a CodeRunner course's long runs cannot take what a running exam needs.
 */
final class Lane
{
    /** @var resource|null */
    private $held = null;

    public function __construct(private readonly Config $c, private readonly string $name, private readonly int $size)
    {
    }

    public function __destruct()
    {
        $this->leave();
    }

    /** Waits up to ENGINE_QUEUE_WAIT_MS for a place in the lane, then 503 busy (as Slots). */
    public function enter(): void
    {
        $t0 = hrtime(true);
        $deadline = $t0 + $this->c->queueWaitMs * 1_000_000;
        $waiting = null;
        try {
            do {
                for ($k = 0; $k < $this->size; $k++) {
                    $fh = @fopen($this->c->engineDir . '/locks/' . $this->name . $k, 'c');
                    if ($fh === false) {
                        throw new HttpError(500, 'the engine cannot open its lane locks');
                    }
                    if (flock($fh, LOCK_EX | LOCK_NB)) {
                        $this->held = $fh;
                        return;
                    }
                    fclose($fh);
                }
                $waiting ??= Metrics::waiting($this->c, $this->name);
                usleep(random_int(5000, 15000));
            } while (hrtime(true) < $deadline);
            Metrics::inc('busy_' . $this->name);
            Metrics::refused($this->name);
            throw new HttpError(503, 'busy', ['Retry-After' => '1']);
        } finally {
            Metrics::waited($waiting ?? '', $this->name, (hrtime(true) - $t0) / 1e9);
        }
    }

    public function leave(): void
    {
        if ($this->held !== null) {
            flock($this->held, LOCK_UN);
            fclose($this->held);
            $this->held = null;
        }
    }
}
