<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Whether students are sitting an event now: a student's window of a published event
 * (lab, quiz or exam) is open, extensions included. Asked of MariaDB at most once every
 * CACHE_S seconds per host (APCu). A database that cannot answer counts as an event
 * running: what depends on it (the Jobe API's CPU time) then errs on the students' side.
 */
final class Events
{
    private const CACHE_S = 10;

    public static function running(Config $c): bool
    {
        $running = apcu_fetch('events:running', $hit);
        if ($hit) {
            return (bool) $running;
        }
        try {
            // the window rule is the view's (assignment_window: schedule plus extra minutes)
            $running = Db::run($c, "SELECT 1 FROM assignment_window w JOIN events e ON e.id = w.event_id
                 WHERE e.published_at IS NOT NULL
                   AND UTC_TIMESTAMP(3) >= w.start_time AND UTC_TIMESTAMP(3) < w.deadline
                 LIMIT 1")->fetchColumn() !== false;
        } catch (\PDOException $e) {
            error_log('prutor-engine: cannot tell whether an event is running, assuming one is: ' . $e->getMessage());
            $running = true;
        }
        apcu_store('events:running', $running, self::CACHE_S);
        return $running;
    }
}
