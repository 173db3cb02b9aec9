-- Exams as they really run (issue 30): pauses (the whole event, a room, one
-- student), accommodations agreed ahead (per student: +N% of the scheduled time
-- and/or +N minutes), and an audit log of every change to an event's timing.
-- The window rule stays in one place: `assignment_window` is recreated here so
-- that accommodations and pauses move `deadline`, and it answers "paused now"
-- (`paused_since`) for the webapp (editor, saves, pages) and the engine (runs).

-- Extra time agreed ahead for a student (the deployment is one course): applied
-- to every event unless the event opts out (events.accommodations_apply = 0).
CREATE TABLE accommodations (
  user_id        INT UNSIGNED      NOT NULL PRIMARY KEY,
  extra_percent  SMALLINT UNSIGNED NOT NULL DEFAULT 0,   -- of the scheduled duration
  extra_minutes  SMALLINT UNSIGNED NOT NULL DEFAULT 0,
  note           VARCHAR(200)      NOT NULL DEFAULT '',
  updated_by     INT UNSIGNED      NULL,
  updated_at     DATETIME(3)       NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  CONSTRAINT fk_accommodations_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;

ALTER TABLE events ADD COLUMN accommodations_apply TINYINT(1) NOT NULL DEFAULT 1 AFTER grades_released_at;

-- A common start: with start_mode 'invigilator' the students wait until staff press
-- start (started_at); every section then has its scheduled duration from that moment.
ALTER TABLE events
  ADD COLUMN start_mode ENUM('scheduled','invigilator') NOT NULL DEFAULT 'scheduled' AFTER accommodations_apply,
  ADD COLUMN started_at DATETIME(3) NULL AFTER start_mode,
  ADD COLUMN started_by INT UNSIGNED NULL AFTER started_at;

-- A pause staff started: its scope and target as typed (for the log and the page).
CREATE TABLE pauses (
  id          INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id    INT UNSIGNED  NOT NULL,
  scope       ENUM('event','room','student') NOT NULL,
  target      VARCHAR(2000) NOT NULL DEFAULT '',   -- the room's address ranges, or the username
  reason      VARCHAR(255)  NOT NULL DEFAULT '',
  started_by  INT UNSIGNED  NULL,
  started_at  DATETIME(3)   NOT NULL,
  ended_by    INT UNSIGNED  NULL,
  ended_at    DATETIME(3)   NULL,
  KEY ix_pauses_event (event_id, ended_at),
  CONSTRAINT fk_pauses_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- The students a pause holds: those whose window was open, and who were not
-- already paused, when it started (so overlapping pauses never count twice, and
-- a student who had finished is never reopened). A hold ends with its pause, or
-- alone when staff resume one student. Its length moves the student's deadline.
CREATE TABLE pause_holds (
  pause_id    INT UNSIGNED NOT NULL,
  event_id    INT UNSIGNED NOT NULL,
  user_id     INT UNSIGNED NOT NULL,
  started_at  DATETIME(3)  NOT NULL,
  ended_at    DATETIME(3)  NULL,
  PRIMARY KEY (pause_id, user_id),
  KEY ix_pause_holds_user (user_id, event_id, ended_at),
  CONSTRAINT fk_pause_holds_pause FOREIGN KEY (pause_id) REFERENCES pauses (id) ON DELETE CASCADE,
  CONSTRAINT fk_pause_holds_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  CONSTRAINT fk_pause_holds_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- Who changed an event's timing, when, and how (pauses, resumes, extensions,
-- section ends, accommodations applied by import): read and exported by staff.
CREATE TABLE event_timing_log (
  id          BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  event_id    INT UNSIGNED NULL,                    -- NULL: every event of the student (an accommodation)
  actor_id    INT UNSIGNED NULL,
  user_id     INT UNSIGNED NULL,                    -- the student concerned, when one is
  action      VARCHAR(32)  NOT NULL,
  target      VARCHAR(255) NOT NULL DEFAULT '',
  detail      VARCHAR(500) NOT NULL DEFAULT '',
  created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ix_event_timing_log_event (event_id, id),
  CONSTRAINT fk_event_timing_log_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- THE WINDOW RULE (replaces 020's): the section's schedule (for a common start:
-- its duration from the moment staff pressed start; no window before); its stop moved by the
-- student's extra minutes given during the event, their accommodation (unless the
-- event opts out; the percentage is of the scheduled duration, rounded to the
-- second), and every pause that held them (an ongoing one up to now, so a paused
-- student's remaining time stays still). paused_since: when the student's ongoing
-- pause began, NULL when not paused. waiting: a common start not given yet (start_time
-- and deadline are NULL until it is). Code stored at or after `deadline` is late.
CREATE OR REPLACE VIEW assignment_window AS
SELECT a.id AS assignment_id, a.event_id, a.user_id, e.graded_basis,
       IF(e.start_mode = 'invigilator', e.started_at, s.start_time) AS start_time,
       CAST(IF(e.start_mode = 'invigilator', e.started_at + INTERVAL TIMESTAMPDIFF(MICROSECOND, s.start_time, s.stop_time) MICROSECOND, s.stop_time)
         + INTERVAL a.extra_minutes MINUTE
         + INTERVAL IF(e.accommodations_apply = 1 AND ac.user_id IS NOT NULL,
             ac.extra_minutes * 60 + ROUND(TIMESTAMPDIFF(SECOND, s.start_time, s.stop_time) * ac.extra_percent / 100), 0) SECOND
         + INTERVAL COALESCE((SELECT SUM(TIMESTAMPDIFF(MICROSECOND, h.started_at, COALESCE(h.ended_at, UTC_TIMESTAMP(3))))
             FROM pause_holds h WHERE h.user_id = a.user_id AND h.event_id = a.event_id), 0) MICROSECOND AS DATETIME(3)) AS deadline,
       (SELECT MIN(h.started_at) FROM pause_holds h
         WHERE h.user_id = a.user_id AND h.event_id = a.event_id AND h.ended_at IS NULL) AS paused_since,
       IF(e.accommodations_apply = 1 AND ac.user_id IS NOT NULL,
          ac.extra_minutes * 60 + ROUND(TIMESTAMPDIFF(SECOND, s.start_time, s.stop_time) * ac.extra_percent / 100), 0) AS accommodation_s,
       e.start_mode = 'invigilator' AND e.started_at IS NULL AS waiting,
       s.start_time AS scheduled_start, s.stop_time AS scheduled_stop
  FROM assignments a
  JOIN events e    ON e.id = a.event_id
  JOIN users u     ON u.id = a.user_id
  JOIN slots sl    ON sl.event_id = a.event_id AND sl.section_id = u.section_id
  JOIN schedules s ON s.id = sl.schedule_id
  LEFT JOIN accommodations ac ON ac.user_id = a.user_id
 WHERE a.kind = 'event';

-- A lock-down stays in force until 15 minutes after the event's last deadline
-- (extra time, accommodations and pauses included: the window rule above).
CREATE OR REPLACE VIEW active_lab_lockdowns AS
SELECT ld.event_id, sl.section_id, ld.allowed_ranges, ld.single_session
  FROM lab_lockdowns ld
  JOIN slots sl ON sl.event_id = ld.event_id
  JOIN schedules s ON s.id = sl.schedule_id
 WHERE UTC_TIMESTAMP(3) >= s.start_time - INTERVAL 15 MINUTE
   AND (UTC_TIMESTAMP(3) < s.stop_time + INTERVAL 15 MINUTE
        OR EXISTS (SELECT 1 FROM assignment_window w
                    WHERE w.event_id = ld.event_id AND UTC_TIMESTAMP(3) < w.deadline + INTERVAL 15 MINUTE));

-- Notices that arrive (announcements of 032, now addressed): to the whole event,
-- a room (address ranges, resolved when sent to the students signed in from
-- there) or one student; each shown until its student acknowledges it.
ALTER TABLE announcements
  ADD COLUMN scope ENUM('event','room','student') NOT NULL DEFAULT 'event' AFTER message,
  ADD COLUMN target VARCHAR(2000) NOT NULL DEFAULT '' AFTER scope;

-- The students a room or one-student announcement is for (none for 'event': all).
CREATE TABLE announcement_recipients (
  announcement_id  INT UNSIGNED NOT NULL,
  user_id          INT UNSIGNED NOT NULL,
  PRIMARY KEY (announcement_id, user_id),
  KEY ix_announcement_recipients_user (user_id),
  CONSTRAINT fk_ann_recipients_announcement FOREIGN KEY (announcement_id) REFERENCES announcements (id) ON DELETE CASCADE,
  CONSTRAINT fk_ann_recipients_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- "I have read it", once per student and announcement. id: the webapp workers load
-- new acknowledgements incrementally (id > the last they saw), never the whole table.
CREATE TABLE announcement_acks (
  id               BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  announcement_id  INT UNSIGNED NOT NULL,
  user_id          INT UNSIGNED NOT NULL,
  acked_at         DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_announcement_acks (announcement_id, user_id),
  KEY ix_announcement_acks_user (user_id),
  CONSTRAINT fk_ann_acks_announcement FOREIGN KEY (announcement_id) REFERENCES announcements (id) ON DELETE CASCADE,
  CONSTRAINT fk_ann_acks_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;
