<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Lab lock-down (issue 16), the engine's side of the rule the webapp applies too: a
 * student whose section has a lock-down in force (SQL view active_lab_lockdowns)
 * may compile, run and evaluate only from the lab's address ranges (the client's
 * address as ClientAddress tells it). The view's rows are cached in APCu for REFRESH_S seconds
 * (one query per refresh for the whole engine, none per request otherwise).
 */
final class LabLock
{
    private const REFRESH_S = 2;
    private const CACHE_KEY = 'lablock:active';

    /** @param array<string, mixed> $server */
    public static function check(Config $c, Session $s, array $server): void
    {
        if ($s->role() !== 'student' || !isset($s->data['section_id'])) {
            return;
        }
        $locks = self::active($c)[(int) $s->data['section_id']] ?? [];
        if (!$locks) {
            return;
        }
        $addr = ClientAddress::of($server, $c->trustedProxies);
        foreach ($locks as $ranges) {
            if (!self::inRanges($addr, $ranges)) {
                throw new HttpError(403, 'this exam can be taken only from the lab\'s computers, and this computer\'s address ('
                    . $addr . ') is not one of them: ask the invigilator');
            }
        }
    }

    /** @return array<int, list<string>> section id => the ranges of each lock-down in force */
    private static function active(Config $c): array
    {
        $hit = false;
        $cached = apcu_fetch(self::CACHE_KEY, $hit);
        if ($hit && is_array($cached)) {
            return $cached;
        }
        $out = [];
        foreach (Db::run($c, 'SELECT section_id, allowed_ranges FROM active_lab_lockdowns')->fetchAll() as $r) {
            $out[(int) $r['section_id']][] = (string) $r['allowed_ranges'];
        }
        apcu_store(self::CACHE_KEY, $out, self::REFRESH_S);
        return $out;
    }

    /** Whether the address is in one of the comma-separated ranges ("" = any address). */
    public static function inRanges(string $addr, string $ranges): bool
    {
        $list = array_values(array_filter(array_map('trim', preg_split('/[\s,;]+/', $ranges) ?: [])));
        return !$list || ClientAddress::in($addr, $list);
    }
}
