-- Up Migration
-- The registry's schema (ARCHITECTURE §4). Every table carries tenant_id and every query filters on it.

CREATE TABLE registry.tenants (
  id text PRIMARY KEY CHECK (id ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
  name text NOT NULL,
  description text,
  instructions text,
  origins jsonb NOT NULL DEFAULT '[]',
  hosts jsonb NOT NULL DEFAULT '[]',
  surface_rules jsonb NOT NULL DEFAULT '{}',
  current_version text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- API keys: only sha256(key) is stored; the key itself is shown once.
CREATE TABLE registry.api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  name text NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_tenant ON registry.api_keys (tenant_id);

CREATE TABLE registry.servers (
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  id text NOT NULL CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,31}$'),
  name text NOT NULL,
  url text NOT NULL,
  transport text NOT NULL CHECK (transport IN ('auto', 'streamable-http', 'sse')),
  auth_mode text NOT NULL CHECK (auth_mode IN ('none', 'header', 'bearer', 'oauth_client_credentials', 'oauth_user')),
  -- Non-secret auth settings (header name, token URL, client id, scope).
  auth_config jsonb NOT NULL DEFAULT '{}',
  -- AES-256-GCM sealed secret (header value, bearer token, client secret); never returned.
  secret text,
  -- Cached OAuth client-credentials access token (sealed) and its expiry.
  token_secret text,
  token_expires_at timestamptz,
  tool_prefix text,
  timeout_ms integer,
  max_concurrency integer,
  stateful boolean NOT NULL DEFAULT false,
  health text NOT NULL DEFAULT 'pending' CHECK (health IN ('pending', 'ok', 'error')),
  last_error text,
  last_discovered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

-- What discovery found, raw, with its content hash.
CREATE TABLE registry.discovered_items (
  tenant_id text NOT NULL,
  server_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('tool', 'resource', 'resource_template', 'prompt')),
  key text NOT NULL,
  definition jsonb NOT NULL,
  content_hash text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz,
  PRIMARY KEY (tenant_id, server_id, kind, key),
  FOREIGN KEY (tenant_id, server_id) REFERENCES registry.servers(tenant_id, id) ON DELETE CASCADE
);

-- What the tenant chose to publish: the approved definition is what goes live; a newer
-- discovered hash is a pending change held for review.
CREATE TABLE registry.publications (
  tenant_id text NOT NULL,
  server_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('tool', 'resource', 'resource_template', 'prompt')),
  key text NOT NULL,
  exposed_name text NOT NULL,
  approved_hash text NOT NULL,
  approved_definition jsonb NOT NULL,
  overrides jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, server_id, kind, key),
  FOREIGN KEY (tenant_id, server_id) REFERENCES registry.servers(tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX publications_exposed_name ON registry.publications (tenant_id, kind, exposed_name);

-- Tools renamed or removed from a publication keep answering under the old name until expires_at.
CREATE TABLE registry.retired_names (
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  exposed_name text NOT NULL,
  server_id text NOT NULL,
  entry jsonb NOT NULL,
  replaced_by text,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, exposed_name)
);

-- Immutable snapshots; version = content hash.
CREATE TABLE registry.snapshots (
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  version text NOT NULL,
  snapshot jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, version)
);

CREATE TABLE registry.audit_log (
  id bigserial PRIMARY KEY,
  tenant_id text NOT NULL,
  actor text NOT NULL,
  action text NOT NULL,
  target text,
  details jsonb NOT NULL DEFAULT '{}',
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_tenant ON registry.audit_log (tenant_id, id);

-- Down Migration
DROP TABLE registry.audit_log;
DROP TABLE registry.snapshots;
DROP TABLE registry.retired_names;
DROP TABLE registry.publications;
DROP TABLE registry.discovered_items;
DROP TABLE registry.servers;
DROP TABLE registry.api_keys;
DROP TABLE registry.tenants;
