-- Lab lock-down per event (issue 16): the address ranges a student of the event
-- may use while it runs, and whether a student may hold one session only.
CREATE TABLE lab_lockdowns (
  event_id        INT UNSIGNED NOT NULL PRIMARY KEY,
  allowed_ranges  VARCHAR(2000) NOT NULL DEFAULT '',   -- CIDR list, comma separated; '' = any address
  single_session  TINYINT(1)    NOT NULL DEFAULT 1,
  updated_by      INT UNSIGNED  NULL,
  updated_at      DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  CONSTRAINT fk_lab_lockdowns_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- The one rule of "a lock-down is in force", read by the webapp and the engine:
-- per (event, section), from 15 minutes before the section's start until 15
-- minutes after its stop plus the largest extra time given in the event.
CREATE VIEW active_lab_lockdowns AS
SELECT ld.event_id, sl.section_id, ld.allowed_ranges, ld.single_session
  FROM lab_lockdowns ld
  JOIN slots sl ON sl.event_id = ld.event_id
  JOIN schedules s ON s.id = sl.schedule_id
 WHERE UTC_TIMESTAMP(3) >= s.start_time - INTERVAL 15 MINUTE
   AND UTC_TIMESTAMP(3) < s.stop_time + INTERVAL (15 + COALESCE((SELECT MAX(a.extra_minutes) FROM assignments a WHERE a.event_id = ld.event_id), 0)) MINUTE;

-- Exam sessions started under a lock-down (the sid is never stored: its SHA-256).
CREATE TABLE lab_sessions (
  sid_hash     CHAR(43)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  user_id      INT UNSIGNED NOT NULL,
  event_id     INT UNSIGNED NOT NULL,
  address      VARCHAR(45)  NOT NULL,
  started_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  ended_at     DATETIME(3)  NULL,
  end_reason   VARCHAR(32)  NULL,
  KEY ix_lab_sessions_user (user_id, ended_at),
  CONSTRAINT fk_lab_sessions_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT fk_lab_sessions_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- What staff read after (or during) the exam: sign-ins, refusals, address
-- changes and session ends of the event's students.
CREATE TABLE lab_audit (
  id          BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id    INT UNSIGNED NOT NULL,
  user_id     INT UNSIGNED NULL,
  kind        ENUM('sign_in','sign_in_refused','request_refused','address_change','session_end') NOT NULL,
  address     VARCHAR(45)  NOT NULL DEFAULT '',
  detail      VARCHAR(255) NOT NULL DEFAULT '',
  created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_lab_audit_event (event_id, id),
  CONSTRAINT fk_lab_audit_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;
