-- Up Migration
-- Console sessions are also kept server-side, so signing out (or removing an admin) ends a
-- session even where a copy of the cookie survives. The cookie carries a random session id;
-- only its SHA-256 is stored.
CREATE TABLE registry.console_sessions (
  id_hash    text PRIMARY KEY,
  tenant_id  text NOT NULL,
  username   text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  FOREIGN KEY (tenant_id, username) REFERENCES registry.tenant_admins (tenant_id, username) ON DELETE CASCADE
);
CREATE INDEX console_sessions_admin ON registry.console_sessions (tenant_id, username);

-- Down Migration
DROP TABLE registry.console_sessions;
