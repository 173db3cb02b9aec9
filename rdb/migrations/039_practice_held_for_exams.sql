-- A practice problem that is also a question of an event not over is held back from
-- practice: its statement, samples and hidden tests are the exam's until the exam ends.
-- "Not over": the event has no schedule yet, a schedule of it is still to end, or some
-- student's window of it (extra time, accommodations, pauses, a common start not yet
-- given: the assignment_window view's rule) is still open or waiting.
-- The webapp (practice list, opening an attempt, the editor) and the engine (runs of a
-- practice attempt) all ask this one view.
CREATE OR REPLACE VIEW problems_held_for_exams AS
SELECT eq.problem_id, eq.event_id
  FROM event_questions eq
  LEFT JOIN schedules es ON es.event_id = eq.event_id
 WHERE es.id IS NULL
    OR UTC_TIMESTAMP(3) < es.stop_time
    OR EXISTS (SELECT 1 FROM assignment_window ew
                WHERE ew.event_id = eq.event_id
                  AND (ew.deadline IS NULL OR UTC_TIMESTAMP(3) < ew.deadline));
