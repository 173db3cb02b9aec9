-- Materialized view of the students' codebook: one row per assignment (event,
-- practice or scratch) with its latest saved code and its result. Kept current by
-- triggers; codebook_view_def is the defining query the triggers refresh from and
-- the tests compare against. The latest code is found through
-- ix_code_assignment_time without a sort.

CREATE VIEW codebook_view_def AS
SELECT a.id           AS assignment_id,
       a.user_id      AS user_id,
       a.kind         AS kind,
       a.event_id     AS event_id,
       e.title        AS event_title,
       a.problem_id   AS problem_id,
       COALESCE(p.title, a.title) AS title,
       c.id           AS latest_code_id,
       c.code         AS latest_code,
       c.save_time    AS latest_save_time,
       sub.submitted_at AS submitted_at,
       a.score        AS score,
       g.marks        AS marks,
       g.feedback     AS feedback
  FROM assignments a
  LEFT JOIN events e   ON e.id = a.event_id
  LEFT JOIN problems p ON p.id = a.problem_id
  LEFT JOIN grades g   ON g.assignment_id = a.id
  LEFT JOIN submissions sub ON sub.assignment_id = a.id
  LEFT JOIN code c     ON c.id = (SELECT c2.id FROM code c2
                                   WHERE c2.assignment_id = a.id
                                   ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1);

CREATE TABLE codebook_view (
  assignment_id     INT UNSIGNED NOT NULL PRIMARY KEY,
  user_id           INT UNSIGNED NOT NULL,
  kind              ENUM('event','practice','scratch') NOT NULL,
  event_id          INT UNSIGNED NULL,
  event_title       VARCHAR(200) NULL,
  problem_id        INT UNSIGNED NULL,
  title             VARCHAR(200) NOT NULL,
  latest_code_id    BIGINT UNSIGNED NULL,
  latest_code       MEDIUMTEXT   NULL,
  latest_save_time  DATETIME(3)  NULL,
  submitted_at      DATETIME(3)  NULL,
  score             DECIMAL(6,2) NULL,
  marks             DECIMAL(6,2) NULL,
  feedback          TEXT         NULL,
  -- codebook page: WHERE user_id = ? ORDER BY latest_save_time DESC
  KEY ix_codebook_view_user_time (user_id, latest_save_time),
  KEY ix_codebook_view_event (event_id),
  KEY ix_codebook_view_problem (problem_id)
) ENGINE=InnoDB;

DELIMITER //

CREATE PROCEDURE codebook_view_refresh_assignment(IN p_assignment_id INT UNSIGNED)
BEGIN
  DELETE FROM codebook_view WHERE assignment_id = p_assignment_id;
  INSERT INTO codebook_view SELECT * FROM codebook_view_def WHERE assignment_id = p_assignment_id;
END//

CREATE TRIGGER codebook_view_assignment_ins AFTER INSERT ON assignments FOR EACH ROW
BEGIN
  CALL codebook_view_refresh_assignment(NEW.id);
END//

CREATE TRIGGER codebook_view_assignment_upd AFTER UPDATE ON assignments FOR EACH ROW
BEGIN
  IF NOT (NEW.score <=> OLD.score
          AND NEW.user_id <=> OLD.user_id AND NEW.kind <=> OLD.kind
          AND NEW.event_id <=> OLD.event_id AND NEW.problem_id <=> OLD.problem_id
          AND NEW.title <=> OLD.title) THEN
    CALL codebook_view_refresh_assignment(NEW.id);
  END IF;
END//

CREATE TRIGGER codebook_view_assignment_del AFTER DELETE ON assignments FOR EACH ROW
BEGIN
  DELETE FROM codebook_view WHERE assignment_id = OLD.id;
END//

-- A save is the hot path: move the latest-code columns in place; a submit also
-- records the submission (whose triggers update both views' submitted_at).
CREATE TRIGGER codebook_view_code_ins AFTER INSERT ON code FOR EACH ROW
BEGIN
  IF NEW.save_trigger = 'submit' THEN
    INSERT INTO submissions (assignment_id, code_id, submitted_at)
    VALUES (NEW.assignment_id, NEW.id, NEW.save_time)
    ON DUPLICATE KEY UPDATE code_id = NEW.id, submitted_at = NEW.save_time;
  END IF;
  UPDATE codebook_view
     SET latest_code_id = NEW.id, latest_code = NEW.code, latest_save_time = NEW.save_time
   WHERE assignment_id = NEW.assignment_id
     AND (latest_save_time IS NULL OR latest_save_time < NEW.save_time
          OR (latest_save_time = NEW.save_time AND latest_code_id < NEW.id));
END//

CREATE TRIGGER codebook_view_code_upd AFTER UPDATE ON code FOR EACH ROW
BEGIN
  CALL codebook_view_refresh_assignment(NEW.assignment_id);
  IF NEW.assignment_id <> OLD.assignment_id THEN
    CALL codebook_view_refresh_assignment(OLD.assignment_id);
  END IF;
END//

CREATE TRIGGER codebook_view_code_del AFTER DELETE ON code FOR EACH ROW
BEGIN
  CALL codebook_view_refresh_assignment(OLD.assignment_id);
END//

CREATE TRIGGER codebook_view_submission_ins AFTER INSERT ON submissions FOR EACH ROW
BEGIN
  UPDATE codebook_view SET submitted_at = NEW.submitted_at WHERE assignment_id = NEW.assignment_id;
END//

CREATE TRIGGER codebook_view_submission_upd AFTER UPDATE ON submissions FOR EACH ROW
BEGIN
  UPDATE codebook_view SET submitted_at = NEW.submitted_at WHERE assignment_id = NEW.assignment_id;
END//

CREATE TRIGGER codebook_view_submission_del AFTER DELETE ON submissions FOR EACH ROW
BEGIN
  UPDATE codebook_view SET submitted_at = NULL WHERE assignment_id = OLD.assignment_id;
END//

CREATE TRIGGER codebook_view_grade_ins AFTER INSERT ON grades FOR EACH ROW
BEGIN
  CALL codebook_view_refresh_assignment(NEW.assignment_id);
END//

CREATE TRIGGER codebook_view_grade_upd AFTER UPDATE ON grades FOR EACH ROW
BEGIN
  CALL codebook_view_refresh_assignment(NEW.assignment_id);
END//

CREATE TRIGGER codebook_view_grade_del AFTER DELETE ON grades FOR EACH ROW
BEGIN
  CALL codebook_view_refresh_assignment(OLD.assignment_id);
END//

CREATE TRIGGER codebook_view_event_upd AFTER UPDATE ON events FOR EACH ROW
BEGIN
  IF NOT (NEW.title <=> OLD.title) THEN
    UPDATE codebook_view SET event_title = NEW.title WHERE event_id = NEW.id;
  END IF;
END//

CREATE TRIGGER codebook_view_problem_upd AFTER UPDATE ON problems FOR EACH ROW
BEGIN
  IF NOT (NEW.title <=> OLD.title) THEN
    DELETE FROM codebook_view WHERE problem_id = NEW.id;
    INSERT INTO codebook_view SELECT * FROM codebook_view_def WHERE problem_id = NEW.id;
  END IF;
END//

DELIMITER ;
