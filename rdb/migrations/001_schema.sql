-- Base schema of the platform. Times are UTC DATETIME(3).
-- Forward-only: never edit a migration that has shipped; add a new one.

CREATE TABLE sections (
  id          INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  code        VARCHAR(32)  NOT NULL,
  name        VARCHAR(128) NOT NULL,
  UNIQUE KEY uq_sections_code (code)
) ENGINE=InnoDB;

CREATE TABLE users (
  id              INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  username        VARCHAR(64)  NOT NULL,
  password_hash   CHAR(60)     NOT NULL,
  name            VARCHAR(128) NOT NULL,
  email           VARCHAR(190) NOT NULL DEFAULT '',
  role            ENUM('admin','instructor','ta','student') NOT NULL DEFAULT 'student',
  section_id      INT UNSIGNED NULL,
  active          TINYINT(1)   NOT NULL DEFAULT 1,
  last_login_at   DATETIME(3)  NULL,
  created_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_users_username (username),
  KEY ix_users_section_role (section_id, role),
  CONSTRAINT fk_users_section FOREIGN KEY (section_id) REFERENCES sections (id)
) ENGINE=InnoDB;

CREATE TABLE problems (
  id               INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  title            VARCHAR(200) NOT NULL,
  category         VARCHAR(64)  NOT NULL DEFAULT '',
  statement_md     MEDIUMTEXT   NOT NULL,
  env              VARCHAR(32)  NOT NULL DEFAULT 'c',
  template_code    MEDIUMTEXT   NOT NULL,
  solution_code    MEDIUMTEXT   NOT NULL,
  time_limit_ms    INT UNSIGNED NOT NULL DEFAULT 2000,
  memory_limit_kb  INT UNSIGNED NOT NULL DEFAULT 262144,
  compare_mode     ENUM('trim','exact') NOT NULL DEFAULT 'trim',
  is_practice      TINYINT(1)   NOT NULL DEFAULT 0,
  created_by       INT UNSIGNED NULL,
  updated_at       DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  KEY ix_problems_practice (is_practice, category),
  CONSTRAINT fk_problems_creator FOREIGN KEY (created_by) REFERENCES users (id)
) ENGINE=InnoDB;

CREATE TABLE test_cases (
  id               INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  problem_id       INT UNSIGNED NOT NULL,
  position         SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  input            MEDIUMTEXT   NOT NULL,
  expected_output  MEDIUMTEXT   NOT NULL,
  visibility       ENUM('visible','hidden') NOT NULL DEFAULT 'visible',
  weight           SMALLINT UNSIGNED NOT NULL DEFAULT 1,
  KEY ix_test_cases_problem (problem_id, position),
  CONSTRAINT fk_test_cases_problem FOREIGN KEY (problem_id) REFERENCES problems (id) ON DELETE CASCADE
) ENGINE=InnoDB;

CREATE TABLE events (
  id            INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  title         VARCHAR(200) NOT NULL,
  type          ENUM('lab','quiz','exam') NOT NULL DEFAULT 'lab',
  description   TEXT         NOT NULL,
  published_at  DATETIME(3)  NULL,
  created_by    INT UNSIGNED NULL,
  created_at    DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  CONSTRAINT fk_events_creator FOREIGN KEY (created_by) REFERENCES users (id)
) ENGINE=InnoDB;

-- A question of an event. section_id NULL: every section gets it; otherwise it is
-- the variant of the question at `position` for that section only.
CREATE TABLE event_questions (
  id          INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id    INT UNSIGNED NOT NULL,
  position    SMALLINT UNSIGNED NOT NULL,
  problem_id  INT UNSIGNED NOT NULL,
  section_id  INT UNSIGNED NULL,
  max_marks   DECIMAL(6,2) NOT NULL DEFAULT 10,
  KEY ix_event_questions_event (event_id, position),
  CONSTRAINT fk_eq_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT fk_eq_problem FOREIGN KEY (problem_id) REFERENCES problems (id),
  CONSTRAINT fk_eq_section FOREIGN KEY (section_id) REFERENCES sections (id)
) ENGINE=InnoDB;

-- A time window of an event (start and stop); slots give it to sections.
CREATE TABLE schedules (
  id          INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id    INT UNSIGNED NOT NULL,
  start_time  DATETIME(3)  NOT NULL,
  stop_time   DATETIME(3)  NOT NULL,
  KEY ix_schedules_event (event_id),
  CONSTRAINT fk_schedules_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT ck_schedules_order CHECK (stop_time > start_time)
) ENGINE=InnoDB;

-- One section sits an event in exactly one schedule.
CREATE TABLE slots (
  id           INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  schedule_id  INT UNSIGNED NOT NULL,
  event_id     INT UNSIGNED NOT NULL,
  section_id   INT UNSIGNED NOT NULL,
  UNIQUE KEY uq_slots_event_section (event_id, section_id),
  KEY ix_slots_schedule (schedule_id),
  CONSTRAINT fk_slots_schedule FOREIGN KEY (schedule_id) REFERENCES schedules (id) ON DELETE CASCADE,
  CONSTRAINT fk_slots_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT fk_slots_section FOREIGN KEY (section_id) REFERENCES sections (id)
) ENGINE=InnoDB;

-- Everything a student writes code in. kind=event: one per (event question, student),
-- created by publishing; kind=practice: one per (practice problem, student);
-- kind=scratch: a free file of the scratchpad (no problem).
CREATE TABLE assignments (
  id                 INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  kind               ENUM('event','practice','scratch') NOT NULL,
  user_id            INT UNSIGNED NOT NULL,
  event_id           INT UNSIGNED NULL,
  question_id        INT UNSIGNED NULL,
  problem_id         INT UNSIGNED NULL,
  title              VARCHAR(200) NOT NULL DEFAULT '',
  extra_minutes      INT UNSIGNED NOT NULL DEFAULT 0,
  score              DECIMAL(6,2) NULL,
  created_at         DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  -- one practice attempt per (student, problem); NULL for the other kinds
  practice_problem_id INT UNSIGNED AS (IF(kind = 'practice', problem_id, NULL)) PERSISTENT,
  UNIQUE KEY uq_assignments_question_user (question_id, user_id),
  UNIQUE KEY uq_assignments_practice (user_id, practice_problem_id),
  KEY ix_assignments_event (event_id, user_id),
  CONSTRAINT fk_assignments_user FOREIGN KEY (user_id) REFERENCES users (id),
  CONSTRAINT fk_assignments_event FOREIGN KEY (event_id) REFERENCES events (id),
  CONSTRAINT fk_assignments_question FOREIGN KEY (question_id) REFERENCES event_questions (id),
  CONSTRAINT fk_assignments_problem FOREIGN KEY (problem_id) REFERENCES problems (id)
) ENGINE=InnoDB;

-- Versioned code: every save, compile, run or submit is a new row.
CREATE TABLE code (
  id             BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  assignment_id  INT UNSIGNED NOT NULL,
  branch_id      INT UNSIGNED NOT NULL DEFAULT 0,
  save_trigger   ENUM('manual','auto','submit','compile','execute','evaluate') NOT NULL,
  code           MEDIUMTEXT   NOT NULL,
  save_time      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  -- serves "latest saved code of an assignment" without a sort
  KEY ix_code_assignment_time (assignment_id, save_time),
  CONSTRAINT fk_code_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- The submission of an assignment (the latest submit wins). Written only by the
-- trigger on `code`, so that a save, submit included, is one authorising
-- INSERT ... SELECT that never reads a table its triggers write.
CREATE TABLE submissions (
  assignment_id  INT UNSIGNED NOT NULL PRIMARY KEY,
  code_id        BIGINT UNSIGNED NOT NULL,
  submitted_at   DATETIME(3)  NOT NULL,
  CONSTRAINT fk_submissions_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE,
  CONSTRAINT fk_submissions_code FOREIGN KEY (code_id) REFERENCES code (id) ON DELETE CASCADE
) ENGINE=InnoDB;

CREATE TABLE compilations (
  id             BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  code_id        BIGINT UNSIGNED NOT NULL,
  assignment_id  INT UNSIGNED NOT NULL,
  success        TINYINT(1)   NOT NULL,
  messages       MEDIUMTEXT   NOT NULL,
  from_cache     TINYINT(1)   NOT NULL DEFAULT 0,
  created_at     DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_compilations_assignment (assignment_id, created_at),
  CONSTRAINT fk_compilations_code FOREIGN KEY (code_id) REFERENCES code (id) ON DELETE CASCADE
) ENGINE=InnoDB;

CREATE TABLE executions (
  id             BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  code_id        BIGINT UNSIGNED NOT NULL,
  assignment_id  INT UNSIGNED NOT NULL,
  input          MEDIUMTEXT   NOT NULL,
  stdout         MEDIUMTEXT   NOT NULL,
  stderr         MEDIUMTEXT   NOT NULL,
  exit_code      INT          NULL,
  signal_no      SMALLINT     NULL,
  time_ms        INT UNSIGNED NOT NULL DEFAULT 0,
  memory_kb      INT UNSIGNED NOT NULL DEFAULT 0,
  verdict        VARCHAR(32)  NOT NULL,
  created_at     DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_executions_assignment (assignment_id, created_at),
  CONSTRAINT fk_executions_code FOREIGN KEY (code_id) REFERENCES code (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- One row per (evaluation run, test case); rows of one run share run_id.
CREATE TABLE evaluations (
  id             BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  run_id         CHAR(26)     NOT NULL,
  code_id        BIGINT UNSIGNED NOT NULL,
  assignment_id  INT UNSIGNED NOT NULL,
  test_case_id   INT UNSIGNED NOT NULL,
  verdict        VARCHAR(32)  NOT NULL,
  passed         TINYINT(1)   NOT NULL,
  actual_output  MEDIUMTEXT   NOT NULL,
  time_ms        INT UNSIGNED NOT NULL DEFAULT 0,
  created_at     DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_evaluations_assignment (assignment_id, created_at),
  KEY ix_evaluations_run (run_id),
  CONSTRAINT fk_evaluations_code FOREIGN KEY (code_id) REFERENCES code (id) ON DELETE CASCADE,
  CONSTRAINT fk_evaluations_test_case FOREIGN KEY (test_case_id) REFERENCES test_cases (id) ON DELETE CASCADE
) ENGINE=InnoDB;

CREATE TABLE grades (
  assignment_id  INT UNSIGNED NOT NULL PRIMARY KEY,
  marks          DECIMAL(6,2) NOT NULL,
  feedback       TEXT         NOT NULL,
  grader_id      INT UNSIGNED NOT NULL,
  graded_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  CONSTRAINT fk_grades_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE,
  CONSTRAINT fk_grades_grader FOREIGN KEY (grader_id) REFERENCES users (id)
) ENGINE=InnoDB;

-- TA grading queue: who grades which submission.
CREATE TABLE grading_tasks (
  assignment_id  INT UNSIGNED NOT NULL PRIMARY KEY,
  ta_id          INT UNSIGNED NOT NULL,
  assigned_at    DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_grading_tasks_ta (ta_id),
  CONSTRAINT fk_grading_tasks_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE,
  CONSTRAINT fk_grading_tasks_ta FOREIGN KEY (ta_id) REFERENCES users (id)
) ENGINE=InnoDB;

CREATE TABLE regrade_requests (
  id             INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  assignment_id  INT UNSIGNED NOT NULL,
  reason         TEXT         NOT NULL,
  status         ENUM('open','accepted','rejected') NOT NULL DEFAULT 'open',
  response       TEXT         NOT NULL,
  resolved_by    INT UNSIGNED NULL,
  created_at     DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  resolved_at    DATETIME(3)  NULL,
  KEY ix_regrade_assignment (assignment_id),
  KEY ix_regrade_status (status),
  CONSTRAINT fk_regrade_assignment FOREIGN KEY (assignment_id) REFERENCES assignments (id) ON DELETE CASCADE,
  CONSTRAINT fk_regrade_resolver FOREIGN KEY (resolved_by) REFERENCES users (id)
) ENGINE=InnoDB;

-- Messages shown on students' home pages: to one section, or to all when NULL.
CREATE TABLE notifications (
  id          INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  section_id  INT UNSIGNED NULL,
  message     VARCHAR(500) NOT NULL,
  created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  expires_at  DATETIME(3)  NULL,
  KEY ix_notifications_section (section_id, created_at),
  CONSTRAINT fk_notifications_section FOREIGN KEY (section_id) REFERENCES sections (id) ON DELETE CASCADE
) ENGINE=InnoDB;
