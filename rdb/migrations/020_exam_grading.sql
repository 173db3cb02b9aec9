-- Exams as students and instructors expect them (issue 12): the window a student
-- sits, what is graded, the automatic grader's queue and results, grade release,
-- and a timing version an open editor polls to learn of extensions and closures.

-- Per event: what is graded (the last submission, or the last save at the
-- deadline) and when marks were released to students (NULL: not yet).
ALTER TABLE events
  ADD COLUMN graded_basis ENUM('submission','last_save') NOT NULL DEFAULT 'submission' AFTER description,
  ADD COLUMN grades_released_at DATETIME(3) NULL AFTER graded_basis;

-- An event assignment's score is the automatic score of its graded code: it
-- changes only together with graded_at, i.e. when the grader sets both.
ALTER TABLE assignments ADD COLUMN graded_at DATETIME(3) NULL;

-- A submission the grader made at the deadline (the student never pressed Submit).
ALTER TABLE submissions ADD COLUMN automatic TINYINT(1) NOT NULL DEFAULT 0;

-- The window a student sits an event question in: the section's schedule plus the
-- student's extra minutes. Code stored at or after `deadline` is late.
CREATE VIEW assignment_window AS
SELECT a.id AS assignment_id, a.event_id, a.user_id, e.graded_basis,
       s.start_time, s.stop_time + INTERVAL a.extra_minutes MINUTE AS deadline
  FROM assignments a
  JOIN events e    ON e.id = a.event_id
  JOIN users u     ON u.id = a.user_id
  JOIN slots sl    ON sl.event_id = a.event_id AND sl.section_id = u.section_id
  JOIN schedules s ON s.id = sl.schedule_id
 WHERE a.kind = 'event';

-- WHAT IS GRADED, the one rule (the grader and every staff page read it here):
-- basis 'submission': the last submission before the deadline, or, when the
--   student never submitted, the last code stored before the deadline (submitted
--   automatically at the deadline);
-- basis 'last_save': the last code stored before the deadline.
-- "Code stored" is every version the editor sent: saves, submits, and the code of
-- compile/run/evaluate requests. Versions at or after the deadline are late: kept
-- and shown to staff, never graded.
CREATE VIEW graded_code_parts AS
SELECT w.assignment_id, w.event_id, w.user_id, w.graded_basis, w.start_time, w.deadline,
       (SELECT c.id FROM code c WHERE c.assignment_id = w.assignment_id AND c.save_trigger = 'submit'
           AND c.save_time < w.deadline ORDER BY c.save_time DESC, c.id DESC LIMIT 1) AS submitted_code_id,
       (SELECT c.id FROM code c WHERE c.assignment_id = w.assignment_id
           AND c.save_time < w.deadline ORDER BY c.save_time DESC, c.id DESC LIMIT 1) AS last_code_id,
       (SELECT COUNT(*) FROM code c WHERE c.assignment_id = w.assignment_id AND c.save_time >= w.deadline) AS late_versions
  FROM assignment_window w;

CREATE VIEW graded_code AS
SELECT assignment_id, event_id, user_id, graded_basis, start_time, deadline, late_versions,
       IF(graded_basis = 'submission' AND submitted_code_id IS NOT NULL, submitted_code_id, last_code_id) AS code_id,
       IF(graded_basis = 'submission' AND submitted_code_id IS NOT NULL, 'submission',
          IF(last_code_id IS NULL, 'nothing', 'deadline')) AS source
  FROM graded_code_parts;

-- The automatic grader's result per assignment (the engine's evaluation of the
-- graded code against every test case); assignments.score mirrors `score`.
CREATE TABLE auto_grades (
  assignment_id  INT UNSIGNED NOT NULL PRIMARY KEY,
  code_id        BIGINT UNSIGNED NOT NULL,
  source         ENUM('submission','deadline') NOT NULL,
  final          TINYINT(1)   NOT NULL,
  score          DECIMAL(6,2) NOT NULL,
  max_score      DECIMAL(6,2) NOT NULL,
  passed         SMALLINT UNSIGNED NOT NULL,
  total          SMALLINT UNSIGNED NOT NULL,
  verdict        VARCHAR(32)  NOT NULL,
  compiled       TINYINT(1)   NOT NULL,
  cases          MEDIUMTEXT   NOT NULL,   -- JSON: per test case position, visibility, verdict, passed
  graded_at      DATETIME(3)  NOT NULL,
  CONSTRAINT fk_auto_grades_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE,
  CONSTRAINT fk_auto_grades_code FOREIGN KEY (code_id) REFERENCES code (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- Assignments the grader must look at from due_at on. `version` moves on every
-- enqueue, so the grader removes a row only if nothing arrived while it worked.
CREATE TABLE grading_queue (
  assignment_id  INT UNSIGNED NOT NULL PRIMARY KEY,
  due_at         DATETIME(3)  NOT NULL,
  version        INT UNSIGNED NOT NULL DEFAULT 1,
  attempts       SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  KEY ix_grading_queue_due (due_at),
  CONSTRAINT fk_grading_queue_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- The stop time of each schedule the grader has swept (queued all its assignments).
CREATE TABLE deadline_sweeps (
  schedule_id  INT UNSIGNED NOT NULL PRIMARY KEY,
  stop_time    DATETIME(3)  NOT NULL,
  swept_at     DATETIME(3)  NOT NULL,
  CONSTRAINT fk_deadline_sweeps_schedule FOREIGN KEY (schedule_id) REFERENCES schedules (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- Bumped whenever a window of the event may have moved (schedule times, slots,
-- a student's extra minutes, publication): open editors poll it (cheap, cached
-- per webapp worker) and fetch their own deadline only when it moves.
CREATE TABLE event_timing (
  event_id    INT UNSIGNED NOT NULL PRIMARY KEY,
  version     INT UNSIGNED NOT NULL,
  changed_at  DATETIME(3)  NOT NULL,
  KEY ix_event_timing_changed (changed_at),
  CONSTRAINT fk_event_timing_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;

DELIMITER //

CREATE PROCEDURE event_timing_bump(IN p_event_id INT UNSIGNED)
BEGIN
  IF p_event_id IS NOT NULL THEN
    INSERT INTO event_timing (event_id, version, changed_at) VALUES (p_event_id, 1, UTC_TIMESTAMP(3))
    ON DUPLICATE KEY UPDATE version = version + 1, changed_at = UTC_TIMESTAMP(3);
  END IF;
END//

CREATE PROCEDURE grading_enqueue(IN p_assignment_id INT UNSIGNED, IN p_due DATETIME(3))
BEGIN
  INSERT INTO grading_queue (assignment_id, due_at) VALUES (p_assignment_id, p_due)
  ON DUPLICATE KEY UPDATE due_at = LEAST(due_at, VALUES(due_at)), version = version + 1, attempts = 0;
END//

CREATE TRIGGER assignments_score_by_grader BEFORE UPDATE ON assignments FOR EACH ROW
BEGIN
  IF NEW.kind = 'event' AND NOT (NEW.score <=> OLD.score) AND NEW.graded_at <=> OLD.graded_at THEN
    SET NEW.score = OLD.score;
  END IF;
END//

CREATE TRIGGER event_timing_assignment_upd AFTER UPDATE ON assignments FOR EACH ROW
BEGIN
  IF NEW.kind = 'event' AND NOT (NEW.extra_minutes <=> OLD.extra_minutes) THEN
    CALL event_timing_bump(NEW.event_id);
    CALL grading_enqueue(NEW.id, UTC_TIMESTAMP(3));
  END IF;
END//

CREATE TRIGGER event_timing_schedule_upd AFTER UPDATE ON schedules FOR EACH ROW
BEGIN
  IF NOT (NEW.start_time <=> OLD.start_time AND NEW.stop_time <=> OLD.stop_time) THEN
    CALL event_timing_bump(NEW.event_id);
  END IF;
END//

CREATE TRIGGER event_timing_slot_ins AFTER INSERT ON slots FOR EACH ROW
BEGIN
  CALL event_timing_bump(NEW.event_id);
END//

CREATE TRIGGER event_timing_slot_upd AFTER UPDATE ON slots FOR EACH ROW
BEGIN
  CALL event_timing_bump(NEW.event_id);
END//

CREATE TRIGGER event_timing_slot_del AFTER DELETE ON slots FOR EACH ROW
BEGIN
  CALL event_timing_bump(OLD.event_id);
END//

CREATE TRIGGER event_timing_event_upd AFTER UPDATE ON events FOR EACH ROW
BEGIN
  IF NOT (NEW.published_at <=> OLD.published_at) THEN
    CALL event_timing_bump(NEW.id);
  END IF;
END//

-- A student's submission is graded at once (a deadline sweep grades the rest).
CREATE TRIGGER grading_submission_ins AFTER INSERT ON submissions FOR EACH ROW
BEGIN
  IF NEW.automatic = 0 THEN
    CALL grading_enqueue(NEW.assignment_id, NEW.submitted_at);
  END IF;
END//

CREATE TRIGGER grading_submission_upd AFTER UPDATE ON submissions FOR EACH ROW
BEGIN
  IF NEW.automatic = 0 AND NOT (NEW.code_id <=> OLD.code_id) THEN
    CALL grading_enqueue(NEW.assignment_id, NEW.submitted_at);
  END IF;
END//

DELIMITER ;
