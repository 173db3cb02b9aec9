-- Similarity reports (issue 16): one job per (event question, request), run by
-- the webapp in a separate low-priority process; its ranked pairs with the
-- matching fragments (0-based [start_row, start_col, end_row, end_col] regions).
CREATE TABLE similarity_jobs (
  id             INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id       INT UNSIGNED NOT NULL,
  question_id    INT UNSIGNED NOT NULL,
  status         ENUM('queued','running','done','failed') NOT NULL DEFAULT 'queued',
  requested_by   INT UNSIGNED NULL,
  submissions    INT UNSIGNED NOT NULL DEFAULT 0,
  error          VARCHAR(500) NOT NULL DEFAULT '',
  run_ms         INT UNSIGNED NULL,
  max_rss_mb     INT UNSIGNED NULL,
  created_at     DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  started_at     DATETIME(3)  NULL,
  finished_at    DATETIME(3)  NULL,
  KEY ix_similarity_jobs_question (question_id, id),
  KEY ix_similarity_jobs_status (status),
  CONSTRAINT fk_similarity_jobs_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT fk_similarity_jobs_question FOREIGN KEY (question_id) REFERENCES event_questions (id) ON DELETE CASCADE
) ENGINE=InnoDB;

CREATE TABLE similarity_pairs (
  job_id         INT UNSIGNED NOT NULL,
  rank_no        SMALLINT UNSIGNED NOT NULL,
  left_code_id   BIGINT UNSIGNED NOT NULL,
  right_code_id  BIGINT UNSIGNED NOT NULL,
  similarity     DECIMAL(5,4) NOT NULL,
  longest        INT UNSIGNED NOT NULL,
  overlap        INT UNSIGNED NOT NULL,
  fragments      MEDIUMTEXT   NOT NULL,
  PRIMARY KEY (job_id, rank_no),
  CONSTRAINT fk_similarity_pairs_job FOREIGN KEY (job_id) REFERENCES similarity_jobs (id) ON DELETE CASCADE,
  CONSTRAINT fk_similarity_pairs_left FOREIGN KEY (left_code_id) REFERENCES code (id) ON DELETE CASCADE,
  CONSTRAINT fk_similarity_pairs_right FOREIGN KEY (right_code_id) REFERENCES code (id) ON DELETE CASCADE
) ENGINE=InnoDB;
