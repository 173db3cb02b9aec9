-- Durable sessions and exactly-once saves (issue 13).
--
-- sessions: the durable copy of every session; memcached (sess:<sid>) stays the
-- fast path. Written at sign-in and at the rare session changes, read only when
-- memcached misses (restart, eviction) and then put back there; the webapp and the
-- engine read it the same way. The cookie's sid is never stored in clear: the row
-- is found by id = base64url(SHA-256(sid)), and sid_sealed (AES-256-GCM under a key
-- derived from SESSION_SECRET) lets revocation find the memcached copies to delete.
CREATE TABLE sessions (
  id          CHAR(43)      CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  user_id     INT UNSIGNED  NOT NULL,
  sid_sealed  VARCHAR(128)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  data        VARCHAR(2048) NOT NULL,
  created_at  DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  expires_at  DATETIME(3)   NOT NULL,
  KEY ix_sessions_user (user_id),
  KEY ix_sessions_expires (expires_at),
  CONSTRAINT fk_sessions_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- A save carries an id its client made (the editor: one per save, reused by every
-- retry of it, and by HAProxy's resend); a repeat of it stores nothing new.
ALTER TABLE code
  ADD COLUMN client_save_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  ADD UNIQUE KEY uq_code_client_save (assignment_id, client_save_id);
