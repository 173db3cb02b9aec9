-- Announcements to a running event and questions from its students (issue 16).
CREATE TABLE announcements (
  id          INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id    INT UNSIGNED NOT NULL,
  author_id   INT UNSIGNED NULL,
  message     VARCHAR(1000) NOT NULL,
  created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_announcements_event (event_id, id),
  CONSTRAINT fk_announcements_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- Whether the students of an event may send questions to its staff (off by default).
CREATE TABLE student_question_settings (
  event_id    INT UNSIGNED NOT NULL PRIMARY KEY,
  enabled     TINYINT(1)   NOT NULL DEFAULT 0,
  CONSTRAINT fk_sq_settings_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;

CREATE TABLE student_questions (
  id           INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id     INT UNSIGNED NOT NULL,
  user_id      INT UNSIGNED NOT NULL,
  question     VARCHAR(1000) NOT NULL,
  answer       VARCHAR(1000) NULL,
  answered_by  INT UNSIGNED NULL,
  created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  answered_at  DATETIME(3)  NULL,
  KEY ix_student_questions_event (event_id, id),
  KEY ix_student_questions_answered (answered_at),
  CONSTRAINT fk_student_questions_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT fk_student_questions_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;
