-- Up Migration
-- Tenant console admins: people who sign in to the console (through the platform issuer, which
-- checks their password with POST /internal/console/verify-login). Passwords are scrypt hashes
-- whose parameters are encoded in the stored string; a disabled admin keeps its row (audit trail)
-- and can no longer sign in or use an existing session.
CREATE TABLE registry.tenant_admins (
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  username text NOT NULL CHECK (username ~ '^[A-Za-z0-9._@-]{1,64}$'),
  name text,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz,
  disabled_at timestamptz,
  PRIMARY KEY (tenant_id, username)
);

-- Discovery progress for the console (GET /v1/servers*): written when a job is enqueued, when the
-- worker starts an attempt, and when it ends, so the view needs no Redis round trip. The job id
-- guards against an older job overwriting the state of a newer one enqueued meanwhile.
ALTER TABLE registry.servers
  ADD COLUMN discovery_state text CHECK (discovery_state IN ('queued', 'running', 'ok', 'error')),
  ADD COLUMN discovery_job_id text,
  ADD COLUMN discovery_attempt integer,
  ADD COLUMN discovery_started_at timestamptz,
  ADD COLUMN discovery_finished_at timestamptz,
  ADD COLUMN discovery_error text,
  ADD COLUMN discovery_counts jsonb;

-- Down Migration
ALTER TABLE registry.servers
  DROP COLUMN discovery_counts,
  DROP COLUMN discovery_error,
  DROP COLUMN discovery_finished_at,
  DROP COLUMN discovery_started_at,
  DROP COLUMN discovery_attempt,
  DROP COLUMN discovery_job_id,
  DROP COLUMN discovery_state;
DROP TABLE registry.tenant_admins;
