-- Materialized view of the students' home page: one row per assignment of a
-- published event, with the student's effective time window. Kept current by the
-- triggers below (never by a rebuild). The time bounds are indexed columns and
-- "ongoing" is decided by the current time at query time, so the table never goes
-- stale as the clock moves (the flaw of the thesis' own MV).
--
-- home_view_def is the defining query: the triggers refresh rows from it, and the
-- tests check that home_view equals it after inserts, updates and deletes.

CREATE VIEW home_view_def AS
SELECT a.id            AS assignment_id,
       a.user_id       AS user_id,
       e.id            AS event_id,
       e.title         AS event_title,
       e.type          AS event_type,
       q.id            AS question_id,
       q.position      AS position,
       p.id            AS problem_id,
       p.title         AS problem_title,
       q.max_marks     AS max_marks,
       s.start_time    AS start_time,
       s.stop_time + INTERVAL a.extra_minutes MINUTE AS stop_time,
       sub.submitted_at AS submitted_at,
       a.score         AS score
  FROM assignments a
  JOIN events e          ON e.id = a.event_id AND e.published_at IS NOT NULL
  JOIN event_questions q ON q.id = a.question_id
  JOIN problems p        ON p.id = a.problem_id
  JOIN users u           ON u.id = a.user_id
  JOIN slots sl          ON sl.event_id = e.id AND sl.section_id = u.section_id
  JOIN schedules s       ON s.id = sl.schedule_id
  LEFT JOIN submissions sub ON sub.assignment_id = a.id
 WHERE a.kind = 'event';

CREATE TABLE home_view (
  assignment_id  INT UNSIGNED NOT NULL PRIMARY KEY,
  user_id        INT UNSIGNED NOT NULL,
  event_id       INT UNSIGNED NOT NULL,
  event_title    VARCHAR(200) NOT NULL,
  event_type     ENUM('lab','quiz','exam') NOT NULL,
  question_id    INT UNSIGNED NOT NULL,
  position       SMALLINT UNSIGNED NOT NULL,
  problem_id     INT UNSIGNED NOT NULL,
  problem_title  VARCHAR(200) NOT NULL,
  max_marks      DECIMAL(6,2) NOT NULL,
  start_time     DATETIME(3)  NOT NULL,
  stop_time      DATETIME(3)  NOT NULL,
  submitted_at   DATETIME(3)  NULL,
  score          DECIMAL(6,2) NULL,
  -- home page: WHERE user_id = ? AND stop_time > now (ongoing and upcoming)
  KEY ix_home_view_user_stop (user_id, stop_time),
  KEY ix_home_view_event (event_id)
) ENGINE=InnoDB;

DELIMITER //

CREATE PROCEDURE home_view_refresh_assignment(IN p_assignment_id INT UNSIGNED)
BEGIN
  DELETE FROM home_view WHERE assignment_id = p_assignment_id;
  INSERT INTO home_view SELECT * FROM home_view_def WHERE assignment_id = p_assignment_id;
END//

CREATE PROCEDURE home_view_refresh_event(IN p_event_id INT UNSIGNED)
BEGIN
  DELETE FROM home_view WHERE event_id = p_event_id;
  INSERT INTO home_view SELECT * FROM home_view_def WHERE event_id = p_event_id;
END//

CREATE PROCEDURE home_view_refresh_user(IN p_user_id INT UNSIGNED)
BEGIN
  DELETE FROM home_view WHERE user_id = p_user_id;
  INSERT INTO home_view SELECT * FROM home_view_def WHERE user_id = p_user_id;
END//

CREATE TRIGGER home_view_assignment_ins AFTER INSERT ON assignments FOR EACH ROW
BEGIN
  IF NEW.kind = 'event' THEN
    CALL home_view_refresh_assignment(NEW.id);
  END IF;
END//

CREATE TRIGGER home_view_assignment_upd AFTER UPDATE ON assignments FOR EACH ROW
BEGIN
  IF NEW.kind = 'event' OR OLD.kind = 'event' THEN
    IF NOT (NEW.score <=> OLD.score
            AND NEW.extra_minutes <=> OLD.extra_minutes AND NEW.user_id <=> OLD.user_id
            AND NEW.event_id <=> OLD.event_id AND NEW.question_id <=> OLD.question_id
            AND NEW.problem_id <=> OLD.problem_id AND NEW.kind <=> OLD.kind) THEN
      CALL home_view_refresh_assignment(NEW.id);
    END IF;
  END IF;
END//

CREATE TRIGGER home_view_assignment_del AFTER DELETE ON assignments FOR EACH ROW
BEGIN
  DELETE FROM home_view WHERE assignment_id = OLD.id;
END//

CREATE TRIGGER home_view_submission_ins AFTER INSERT ON submissions FOR EACH ROW
BEGIN
  UPDATE home_view SET submitted_at = NEW.submitted_at WHERE assignment_id = NEW.assignment_id;
END//

CREATE TRIGGER home_view_submission_upd AFTER UPDATE ON submissions FOR EACH ROW
BEGIN
  UPDATE home_view SET submitted_at = NEW.submitted_at WHERE assignment_id = NEW.assignment_id;
END//

CREATE TRIGGER home_view_submission_del AFTER DELETE ON submissions FOR EACH ROW
BEGIN
  UPDATE home_view SET submitted_at = NULL WHERE assignment_id = OLD.assignment_id;
END//

-- Deleting code removes its submission by cascade, which fires no submission trigger.
CREATE TRIGGER home_view_code_del AFTER DELETE ON code FOR EACH ROW
BEGIN
  CALL home_view_refresh_assignment(OLD.assignment_id);
END//

CREATE TRIGGER home_view_event_upd AFTER UPDATE ON events FOR EACH ROW
BEGIN
  IF NOT (NEW.title <=> OLD.title AND NEW.type <=> OLD.type
          AND NEW.published_at <=> OLD.published_at) THEN
    CALL home_view_refresh_event(NEW.id);
  END IF;
END//

CREATE TRIGGER home_view_event_del AFTER DELETE ON events FOR EACH ROW
BEGIN
  DELETE FROM home_view WHERE event_id = OLD.id;
END//

CREATE TRIGGER home_view_question_upd AFTER UPDATE ON event_questions FOR EACH ROW
BEGIN
  IF NOT (NEW.position <=> OLD.position AND NEW.max_marks <=> OLD.max_marks
          AND NEW.problem_id <=> OLD.problem_id) THEN
    CALL home_view_refresh_event(NEW.event_id);
  END IF;
END//

CREATE TRIGGER home_view_problem_upd AFTER UPDATE ON problems FOR EACH ROW
BEGIN
  IF NOT (NEW.title <=> OLD.title) THEN
    DELETE FROM home_view WHERE problem_id = NEW.id;
    INSERT INTO home_view SELECT * FROM home_view_def WHERE problem_id = NEW.id;
  END IF;
END//

CREATE TRIGGER home_view_schedule_upd AFTER UPDATE ON schedules FOR EACH ROW
BEGIN
  IF NOT (NEW.start_time <=> OLD.start_time AND NEW.stop_time <=> OLD.stop_time) THEN
    CALL home_view_refresh_event(NEW.event_id);
  END IF;
END//

-- Deleting a schedule removes its slots by cascade, which fires no slot trigger.
CREATE TRIGGER home_view_schedule_del AFTER DELETE ON schedules FOR EACH ROW
BEGIN
  CALL home_view_refresh_event(OLD.event_id);
END//

CREATE TRIGGER home_view_slot_ins AFTER INSERT ON slots FOR EACH ROW
BEGIN
  CALL home_view_refresh_event(NEW.event_id);
END//

CREATE TRIGGER home_view_slot_upd AFTER UPDATE ON slots FOR EACH ROW
BEGIN
  CALL home_view_refresh_event(NEW.event_id);
  IF NEW.event_id <> OLD.event_id THEN
    CALL home_view_refresh_event(OLD.event_id);
  END IF;
END//

CREATE TRIGGER home_view_slot_del AFTER DELETE ON slots FOR EACH ROW
BEGIN
  CALL home_view_refresh_event(OLD.event_id);
END//

CREATE TRIGGER home_view_user_upd AFTER UPDATE ON users FOR EACH ROW
BEGIN
  IF NOT (NEW.section_id <=> OLD.section_id) THEN
    CALL home_view_refresh_user(NEW.id);
  END IF;
END//

DELIMITER ;
