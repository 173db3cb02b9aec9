-- The demo's finished quiz has its marks released (issue 12: students see an
-- event's scores, marks and feedback only once staff release them).
UPDATE events SET grades_released_at = UTC_TIMESTAMP(3) WHERE id = 2 AND grades_released_at IS NULL;
