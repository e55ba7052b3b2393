-- Up Migration
-- The tenant user directory (issue 41): the people who sign in at a tenant's own authorization
-- server when it has no enterprise IdP (idp.kind 'local' in production). Tenant admins invite
-- them; each sets a password (scrypt, the same helper as console admins) through a one-time
-- link, and may register passkeys. The auth service verifies both over /internal/users/*.
CREATE TABLE registry.tenant_users (
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  username text NOT NULL CHECK (username ~ '^[A-Za-z0-9._@-]{1,64}$'),
  name text,
  -- NULL until the invitation is accepted.
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by text NOT NULL,
  last_login_at timestamptz,
  disabled_at timestamptz,
  -- Sessions and refresh tokens issued before this are refused (a password set through a link ends the old ones).
  sessions_valid_after timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, username)
);

-- One-time links (invite or password reset): only the SHA-256 of the token is stored; a link is
-- consumed in the same transaction that sets the password, and a new link replaces older ones.
CREATE TABLE registry.tenant_user_links (
  token_hash text PRIMARY KEY,
  tenant_id text NOT NULL,
  username text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('invite', 'reset')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  FOREIGN KEY (tenant_id, username) REFERENCES registry.tenant_users (tenant_id, username) ON DELETE CASCADE
);
CREATE INDEX tenant_user_links_user ON registry.tenant_user_links (tenant_id, username);

-- WebAuthn credentials (passkeys) of directory users: the public key and signature counter.
CREATE TABLE registry.tenant_user_passkeys (
  tenant_id text NOT NULL,
  credential_id text NOT NULL CHECK (length(credential_id) BETWEEN 1 AND 1400 AND credential_id ~ '^[A-Za-z0-9_-]+$'),
  username text NOT NULL,
  public_key text NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  transports jsonb NOT NULL DEFAULT '[]',
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  PRIMARY KEY (tenant_id, credential_id),
  FOREIGN KEY (tenant_id, username) REFERENCES registry.tenant_users (tenant_id, username) ON DELETE CASCADE
);
CREATE INDEX tenant_user_passkeys_user ON registry.tenant_user_passkeys (tenant_id, username);

-- Down Migration
DROP TABLE registry.tenant_user_passkeys;
DROP TABLE registry.tenant_user_links;
DROP TABLE registry.tenant_users;
