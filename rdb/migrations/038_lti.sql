-- LTI 1.3 (issue 27): the LMS platforms an admin registered, our tool's signing
-- keys, launches in progress, who an LMS user is here, which section an LMS
-- course is, and the grades sent back. Issuers, client ids, subs and context ids
-- are the platform's strings (LTI 1.3 allows up to 255 characters).

-- A platform = one (issuer, client id): the same LMS may register the tool twice.
CREATE TABLE lti_platforms (
  id              INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  name            VARCHAR(128)  NOT NULL,
  issuer          VARCHAR(255)  NOT NULL,
  client_id       VARCHAR(255)  NOT NULL,
  auth_login_url  VARCHAR(1000) NOT NULL,
  token_url       VARCHAR(1000) NOT NULL,
  jwks_url        VARCHAR(1000) NOT NULL,
  created_at      DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_lti_platforms_issuer_client (issuer, client_id)
) ENGINE=InnoDB;

-- LTI Dynamic Registration: a link an admin made for one LMS's registration
-- (the LMS opens it in its own page, where our session cookie is not sent): only
-- the SHA-256 of its token is kept; single use, short-lived.
CREATE TABLE lti_registration_links (
  token_hash   CHAR(43)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  created_by   INT UNSIGNED NOT NULL,
  created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  expires_at   DATETIME(3)  NOT NULL,
  used_at      DATETIME(3)  NULL,
  platform_id  INT UNSIGNED NULL,
  CONSTRAINT fk_lti_registration_links_user FOREIGN KEY (created_by) REFERENCES users (id) ON DELETE CASCADE,
  CONSTRAINT fk_lti_registration_links_platform FOREIGN KEY (platform_id) REFERENCES lti_platforms (id) ON DELETE SET NULL
) ENGINE=InnoDB;

-- The deployment ids of a platform a launch may carry (any other is refused).
CREATE TABLE lti_deployments (
  platform_id    INT UNSIGNED NOT NULL,
  deployment_id  VARCHAR(255) NOT NULL,
  PRIMARY KEY (platform_id, deployment_id),
  CONSTRAINT fk_lti_deployments_platform FOREIGN KEY (platform_id) REFERENCES lti_platforms (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- Our tool's RSA key pairs; the newest signs and is published (with the older
-- ones) at /lti/jwks. The private key is sealed with a key derived from
-- SESSION_SECRET (AES-256-GCM), so a database dump alone does not give it away.
CREATE TABLE lti_tool_keys (
  kid           CHAR(43)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  public_jwk    TEXT         NOT NULL,
  private_sealed TEXT        CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at    DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE=InnoDB;

-- A launch between the login initiation and the session: state and nonce are
-- single use and short-lived; `browser` is SHA-256 of the cookie of the browser
-- that began it (the launch must end in that browser); `ticket` is set once the
-- id_token was verified, `claims` what it said.
CREATE TABLE lti_launches (
  state        CHAR(43)      CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  nonce        CHAR(43)      CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  browser      CHAR(43)      CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  platform_id  INT UNSIGNED  NOT NULL,
  ticket       CHAR(43)      CHARACTER SET ascii COLLATE ascii_bin NULL,
  claims       MEDIUMTEXT    NULL,
  expires_at   DATETIME(3)   NOT NULL,
  UNIQUE KEY uq_lti_launches_ticket (ticket),
  KEY ix_lti_launches_expires (expires_at),
  CONSTRAINT fk_lti_launches_platform FOREIGN KEY (platform_id) REFERENCES lti_platforms (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- Who a platform user is here: by (issuer, sub), never by email.
CREATE TABLE lti_users (
  issuer      VARCHAR(255) NOT NULL,
  sub         VARCHAR(255) NOT NULL,
  user_id     INT UNSIGNED NOT NULL,
  created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (issuer, sub),
  UNIQUE KEY uq_lti_users_user (user_id),
  CONSTRAINT fk_lti_users_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- An LMS course (context) is one of our sections: made on its first launch,
-- re-pointed by an admin to an existing section if wanted.
CREATE TABLE lti_contexts (
  platform_id  INT UNSIGNED NOT NULL,
  context_id   VARCHAR(255) NOT NULL,
  title        VARCHAR(255) NOT NULL DEFAULT '',
  section_id   INT UNSIGNED NOT NULL,
  -- Names and Role Provisioning Services: the roster's URL (from the launch) and the last sync
  memberships_url  VARCHAR(1000) NULL,
  roster_synced_at DATETIME(3)   NULL,
  roster_result    VARCHAR(1000) NOT NULL DEFAULT '',
  created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (platform_id, context_id),
  CONSTRAINT fk_lti_contexts_platform FOREIGN KEY (platform_id) REFERENCES lti_platforms (id) ON DELETE CASCADE,
  CONSTRAINT fk_lti_contexts_section FOREIGN KEY (section_id) REFERENCES sections (id)
) ENGINE=InnoDB;

-- A resource link (a course's activity in the LMS) and what it opens here; its
-- AGS line item (from the launch's endpoint claim), where the event's scores go.
CREATE TABLE lti_links (
  id                INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  platform_id       INT UNSIGNED  NOT NULL,
  resource_link_id  VARCHAR(255)  NOT NULL,
  context_id        VARCHAR(255)  NULL,
  event_id          INT UNSIGNED  NULL,
  problem_id        INT UNSIGNED  NULL,
  lineitem_url      VARCHAR(1000) NULL,
  updated_at        DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  UNIQUE KEY uq_lti_links_resource (platform_id, resource_link_id),
  KEY ix_lti_links_event (event_id),
  CONSTRAINT fk_lti_links_platform FOREIGN KEY (platform_id) REFERENCES lti_platforms (id) ON DELETE CASCADE,
  CONSTRAINT fk_lti_links_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE SET NULL
) ENGINE=InnoDB;

-- One student's score of one link's event as last computed, and its delivery:
-- pending until the platform acknowledged it (then sent), refused after the
-- attempts run out (with the platform's answer). A score that changes after
-- release goes back to pending. lease: which sender holds the row (workers and
-- replicas share the table; one sends it).
CREATE TABLE lti_scores (
  link_id       INT UNSIGNED  NOT NULL,
  user_id       INT UNSIGNED  NOT NULL,
  score_given   DECIMAL(8,2)  NOT NULL,
  score_max     DECIMAL(8,2)  NOT NULL,
  status        ENUM('pending','sent','refused') NOT NULL DEFAULT 'pending',
  attempts      INT UNSIGNED  NOT NULL DEFAULT 0,
  last_error    VARCHAR(1000) NOT NULL DEFAULT '',
  next_try_at   DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  lease         CHAR(16)      CHARACTER SET ascii COLLATE ascii_bin NULL,
  lease_until   DATETIME(3)   NULL,
  sent_at       DATETIME(3)   NULL,
  PRIMARY KEY (link_id, user_id),
  KEY ix_lti_scores_due (status, next_try_at),
  CONSTRAINT fk_lti_scores_link FOREIGN KEY (link_id) REFERENCES lti_links (id) ON DELETE CASCADE,
  CONSTRAINT fk_lti_scores_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB;

-- Safe Exam Browser per event: when a row exists, the event's exam pages and saves
-- need SEB's headers computed with one of these keys (hex SHA-256 strings, one per
-- line): X-SafeExamBrowser-ConfigKeyHash with a Config Key, or
-- X-SafeExamBrowser-RequestHash with a Browser Exam Key. quit_url goes into the
-- .seb file the instructor downloads.
CREATE TABLE event_seb (
  event_id           INT UNSIGNED  NOT NULL PRIMARY KEY,
  config_keys        TEXT          NOT NULL,
  browser_exam_keys  TEXT          NOT NULL,
  quit_url           VARCHAR(1000) NOT NULL DEFAULT '',
  updated_at         DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  CONSTRAINT fk_event_seb_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB;
