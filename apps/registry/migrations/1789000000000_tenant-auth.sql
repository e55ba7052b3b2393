-- Up Migration
-- A tenant's OAuth settings (issue 11): the registry owns them and publishes them inside the
-- tenant document, so the gateway (resource server) and the auth service (authorization
-- server) hot-swap them. Secrets are sealed (AES-256-GCM, AAD tenant-secret:<tenant>:<slot>)
-- and travel sealed; no row ⇒ the tenant has no authorization server (open endpoint).
CREATE TABLE registry.tenant_auth (
  tenant_id text PRIMARY KEY REFERENCES registry.tenants(id) ON DELETE CASCADE,
  protected boolean NOT NULL DEFAULT false,
  scopes jsonb NOT NULL DEFAULT '["mcp:tools"]',
  default_scopes jsonb,
  tool_scopes jsonb NOT NULL DEFAULT '{}',
  allow_private_use_redirects boolean NOT NULL DEFAULT true,
  idp_kind text NOT NULL DEFAULT 'local' CHECK (idp_kind IN ('local', 'oidc')),
  idp_issuer text,
  idp_client_id text,
  idp_scopes jsonb,
  -- sealed, slot 'idp'
  idp_secret text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (idp_kind = 'local' OR (idp_issuer IS NOT NULL AND idp_client_id IS NOT NULL))
);

-- Upstream servers whose calls carry a per-user token from the auth service's vault.
CREATE TABLE registry.tenant_connectors (
  tenant_id text NOT NULL,
  server_id text NOT NULL,
  issuer text NOT NULL,
  client_id text NOT NULL,
  scopes jsonb NOT NULL DEFAULT '[]',
  -- sealed, slot 'connector:<server>'
  secret text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, server_id),
  FOREIGN KEY (tenant_id, server_id) REFERENCES registry.servers(tenant_id, id) ON DELETE CASCADE
);

-- Down Migration
DROP TABLE registry.tenant_connectors;
DROP TABLE registry.tenant_auth;
