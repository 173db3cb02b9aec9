<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * A folder used as a cache, bounded in entries and in bytes; the least recently used
 * entries (oldest mtime: a hit touches its entry) go first. The compile cache and the
 * Jobe API's support files are both kept this way.
 *
 * Running totals in APCu (shared by the Apache workers) are counted on every insert, so
 * that an insert does not look at the folder. Past a bound, one worker at a time
 * recounts the folder and evicts down to EVICT_TO of the bounds, so that the recount (a
 * stat of every entry: 22.7 ms for 5,000) comes once per some hundreds of inserts.
 * (Evicting to the bound itself left the cache at it, and every insert paid a recount:
 * the engine's fresh jobs/s fell by a third; recounting on every insert made a Jobe PUT
 * take 7 ms at 3,000 files and grow with them.) The cache overshoots its bounds by at
 * most the inserts made during one recount; the totals are recounted whenever APCu has
 * lost them, and that recount evicts only what is beyond the bounds.
 */
final class LruFolder
{
    public const EVICT_TO = 0.9;

    /**
     * @param string $key the APCu prefix of this cache's totals
     * @param \Closure(string): bool $isEntry which names in the folder are entries (not the
     *        cache's locks, not files still being written)
     */
    public function __construct(
        private readonly string $dir,
        private readonly string $key,
        private readonly int $maxFiles,
        private readonly int $maxBytes,
        private readonly \Closure $isEntry,
    ) {
    }

    /** Counts an insert ($files new entries, $bytes more bytes: a replaced entry is 0 and the difference) and evicts past a bound. */
    public function inserted(int $files, int $bytes): void
    {
        // apcu_inc makes a missing key (APCu restarted or full) from the increment alone: a
        // cache of thousands would count from 1 and overshoot its bounds, so look first
        $lost = !apcu_exists($this->key . ':files') || !apcu_exists($this->key . ':bytes');
        $count = apcu_inc($this->key . ':files', $files);
        $total = apcu_inc($this->key . ':bytes', $bytes);
        if ((!$lost && $count <= $this->maxFiles && $total <= $this->maxBytes)
            || !apcu_add($this->key . ':evicting', getmypid(), 60)) {
            return;
        }
        $share = $lost ? 1.0 : self::EVICT_TO;
        try {
            [$count, $total] = $this->evict((int) ($this->maxFiles * $share), (int) ($this->maxBytes * $share));
            apcu_store($this->key . ':files', $count);
            apcu_store($this->key . ':bytes', $total);
        } finally {
            apcu_delete($this->key . ':evicting');
        }
    }

    /**
     * Removes the least recently used entries until at most $maxFiles and $maxBytes
     * remain; returns what remains [entries, bytes].
     *
     * @return array{0: int, 1: int}
     */
    public function evict(int $maxFiles, int $maxBytes): array
    {
        $entries = [];
        $bytes = 0;
        foreach ((array) @scandir($this->dir) as $f) {
            if (!is_string($f) || $f === '.' || $f === '..' || !($this->isEntry)($f)) {
                continue;
            }
            $s = @stat($this->dir . '/' . $f);
            if ($s !== false) {
                $entries[$f] = [$s['mtime'], $s['size']];
                $bytes += $s['size'];
            }
        }
        uasort($entries, static fn (array $a, array $b): int => $a[0] <=> $b[0]);
        $count = count($entries);
        foreach ($entries as $f => [, $size]) {
            if ($count <= $maxFiles && $bytes <= $maxBytes) {
                break;
            }
            @unlink($this->dir . '/' . $f);
            $count--;
            $bytes -= $size;
        }
        return [$count, $bytes];
    }
}
