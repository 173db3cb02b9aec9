-- Revocations memcached did not take. revokeUser deletes a session's row
-- in `sessions`, then its memcached copy sess:<sid>; when memcached cannot be reached
-- at that moment the copy would outlive the revocation, and a memcached hit is
-- trusted without MariaDB. So the failed ones are recorded here until a delete
-- succeeds: webapp workers and the engine read this table every 2 s and refuse a
-- memcached hit whose id is in it; the webapp retries the deletes and removes the rows.
-- id = base64url(SHA-256(sid)) as in `sessions`; sid_sealed lets the retry name the
-- memcached key; expires_at = when that copy expires by itself (row then useless).
CREATE TABLE session_revocations (
  id          CHAR(43)      CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  sid_sealed  VARCHAR(128)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  expires_at  DATETIME(3)   NOT NULL,
  KEY ix_session_revocations_expires (expires_at)
) ENGINE=InnoDB;
