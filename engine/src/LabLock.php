<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Lab lock-down (issue 16), the engine's side of the rule the webapp applies too: a
 * student whose section has a lock-down in force (SQL view active_lab_lockdowns)
 * may compile, run and evaluate only from the lab's address ranges. The client's
 * address is REMOTE_ADDR, or, when that is a trusted proxy (HAProxy, which drops a
 * client's own X-Forwarded-For and adds the address it saw), the last
 * X-Forwarded-For entry. The view's rows are cached in APCu for REFRESH_S seconds
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
        $addr = self::clientAddress($server, $c->trustedProxies);
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

    /**
     * @param array<string, mixed> $server
     * @param list<string> $trusted CIDR ranges of the proxies whose X-Forwarded-For is believed
     */
    public static function clientAddress(array $server, array $trusted): string
    {
        $remote = (string) ($server['REMOTE_ADDR'] ?? '');
        $xff = trim((string) ($server['HTTP_X_FORWARDED_FOR'] ?? ''));
        if ($xff === '' || !self::inRanges($remote, implode(',', $trusted))) {
            return $remote;
        }
        $parts = array_map('trim', explode(',', $xff));
        $last = end($parts);
        return filter_var($last, FILTER_VALIDATE_IP) !== false ? $last : $remote;
    }

    /** Whether the address is in one of the comma-separated ranges ("" = any address). */
    public static function inRanges(string $addr, string $ranges): bool
    {
        $list = array_filter(array_map('trim', preg_split('/[\s,;]+/', $ranges) ?: []));
        if (!$list) {
            return true;
        }
        if (preg_match('/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i', $addr, $m)) {
            $addr = $m[1];
        }
        $bin = @inet_pton($addr);
        if ($bin === false) {
            return false;
        }
        foreach ($list as $range) {
            [$net, $bits] = array_pad(explode('/', $range, 2), 2, null);
            $netBin = @inet_pton((string) $net);
            if ($netBin === false || strlen($netBin) !== strlen($bin)) {
                continue;
            }
            $bits = $bits === null ? strlen($bin) * 8 : (int) $bits;
            $full = intdiv($bits, 8);
            if (substr($bin, 0, $full) !== substr($netBin, 0, $full)) {
                continue;
            }
            $rest = $bits % 8;
            if ($rest === 0) {
                return true;
            }
            $mask = (0xff << (8 - $rest)) & 0xff;
            if ((ord($bin[$full]) & $mask) === (ord($netBin[$full]) & $mask)) {
                return true;
            }
        }
        return false;
    }
}
