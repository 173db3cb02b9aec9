-- Grading as instructors set it (issue 29): how a case's output is compared, per
-- problem and overridable per test case, and checker programs with partial credit.
--
-- compare_mode (engine/src/Compare.php says each exactly):
--   exact       byte for byte
--   trim        trailing whitespace of lines and trailing newlines ignored (the default)
--   whitespace  every difference in spaces and tabs within a line, and blank lines, ignored
--   case        as trim, and letters compared without case (ASCII)
--   tokens      the output as whitespace-separated tokens (line breaks do not matter)
--   numbers     as tokens; a token of the expected output that is a number matches a
--               number within abs_tolerance OR within rel_tolerance x |expected|
--               (Kattis' float_absolute_tolerance / float_relative_tolerance)
--   checker     the problem's (or the case's own) checker program decides, and may give
--               partial credit (engine/src/Checker.php)
-- A test case's NULL columns take the problem's value.
ALTER TABLE problems
  MODIFY compare_mode ENUM('trim','exact','whitespace','case','tokens','numbers','checker') NOT NULL DEFAULT 'trim',
  ADD COLUMN abs_tolerance DOUBLE NULL AFTER compare_mode,
  ADD COLUMN rel_tolerance DOUBLE NULL AFTER abs_tolerance,
  ADD COLUMN checker_env VARCHAR(32) NULL AFTER rel_tolerance,
  ADD COLUMN checker_interface ENUM('kattis','testlib') NOT NULL DEFAULT 'kattis' AFTER checker_env,
  ADD COLUMN checker_code MEDIUMTEXT NULL AFTER checker_interface;

ALTER TABLE test_cases
  ADD COLUMN compare_mode ENUM('trim','exact','whitespace','case','tokens','numbers','checker') NULL AFTER weight,
  ADD COLUMN abs_tolerance DOUBLE NULL AFTER compare_mode,
  ADD COLUMN rel_tolerance DOUBLE NULL AFTER abs_tolerance,
  ADD COLUMN checker_env VARCHAR(32) NULL AFTER rel_tolerance,
  ADD COLUMN checker_interface ENUM('kattis','testlib') NULL AFTER checker_env,
  ADD COLUMN checker_code MEDIUMTEXT NULL AFTER checker_interface;

-- The share of a case's weight a run earned (1 passed, 0 failed, between: a checker's
-- partial credit), and what the checker said (shown to students for visible cases only).
ALTER TABLE evaluations
  ADD COLUMN credit DECIMAL(5,4) NOT NULL DEFAULT 0 AFTER passed,
  ADD COLUMN feedback TEXT NULL AFTER credit;

-- Regrading a whole event's automatic marks (after a checker, comparison or weight
-- change): the new marks are computed into regrade_marks first, shown next to the
-- old ones, and written to auto_grades / assignments.score only when an instructor
-- applies the run. What is graded is the graded_code view's choice, as always.
CREATE TABLE regrade_runs (
  id          INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id    INT UNSIGNED NOT NULL,
  created_by  INT UNSIGNED NOT NULL,
  created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  applied_at  DATETIME(3)  NULL,
  KEY ix_regrade_runs_event (event_id, created_at),
  CONSTRAINT fk_regrade_runs_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT fk_regrade_runs_user FOREIGN KEY (created_by) REFERENCES users (id)
) ENGINE=InnoDB;

CREATE TABLE regrade_marks (
  run_id         INT UNSIGNED NOT NULL,
  assignment_id  INT UNSIGNED NOT NULL,
  code_id        BIGINT UNSIGNED NOT NULL,
  source         ENUM('submission','deadline') NOT NULL,
  final          TINYINT(1)   NOT NULL,
  old_score      DECIMAL(6,2) NULL,
  new_score      DECIMAL(6,2) NOT NULL,
  max_score      DECIMAL(6,2) NOT NULL,
  passed         SMALLINT UNSIGNED NOT NULL,
  total          SMALLINT UNSIGNED NOT NULL,
  verdict        VARCHAR(32)  NOT NULL,
  compiled       TINYINT(1)   NOT NULL,
  cases          MEDIUMTEXT   NOT NULL,
  PRIMARY KEY (run_id, assignment_id),
  CONSTRAINT fk_regrade_marks_run FOREIGN KEY (run_id) REFERENCES regrade_runs (id) ON DELETE CASCADE,
  CONSTRAINT fk_regrade_marks_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE,
  CONSTRAINT fk_regrade_marks_code FOREIGN KEY (code_id) REFERENCES code (id) ON DELETE CASCADE
) ENGINE=InnoDB;
