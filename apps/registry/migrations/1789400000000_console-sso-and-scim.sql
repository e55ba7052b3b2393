-- Up Migration
-- Console SSO and SCIM (issue 44 item 4). A tenant may let its admins sign in to the console
-- through its own OIDC IdP and provision admins and directory users by SCIM 2.0.

-- One SSO setting per tenant: the client secret is sealed with the registry's SecretBox (AAD
-- names the tenant), the group → role map and JIT switch decide who gets in with which role.
CREATE TABLE registry.console_sso (
  tenant_id text PRIMARY KEY REFERENCES registry.tenants(id) ON DELETE CASCADE,
  issuer text NOT NULL,
  client_id text NOT NULL,
  client_secret_sealed text,
  group_claim text NOT NULL DEFAULT 'groups',
  username_claim text NOT NULL DEFAULT 'email',
  role_map jsonb NOT NULL DEFAULT '{}',
  jit boolean NOT NULL DEFAULT false,
  enabled boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- SSO- and SCIM-made admins have no password (they sign in through the IdP only); `source` says
-- who manages the row, so SCIM never disables an admin it did not make.
ALTER TABLE registry.tenant_admins ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE registry.tenant_admins ADD COLUMN source text NOT NULL DEFAULT 'password' CHECK (source IN ('password', 'sso', 'scim'));

-- SCIM bearer tokens: only the SHA-256 is stored; the token is shown once at creation.
CREATE TABLE registry.scim_tokens (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by text NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX scim_tokens_tenant ON registry.scim_tokens (tenant_id);

-- SCIM's view of a directory user: its stable id, the IdP's externalId and the attributes it sent.
ALTER TABLE registry.tenant_users
  ADD COLUMN scim_id uuid,
  ADD COLUMN external_id text,
  ADD COLUMN scim_attrs jsonb,
  ADD COLUMN scim_updated_at timestamptz;
CREATE UNIQUE INDEX tenant_users_scim_id ON registry.tenant_users (tenant_id, scim_id) WHERE scim_id IS NOT NULL;
CREATE INDEX tenant_users_external_id ON registry.tenant_users (tenant_id, external_id) WHERE external_id IS NOT NULL;

CREATE TABLE registry.scim_groups (
  tenant_id text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  id uuid NOT NULL,
  display_name text NOT NULL,
  external_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, display_name)
);

CREATE TABLE registry.scim_group_members (
  tenant_id text NOT NULL,
  group_id uuid NOT NULL,
  username text NOT NULL,
  PRIMARY KEY (tenant_id, group_id, username),
  FOREIGN KEY (tenant_id, group_id) REFERENCES registry.scim_groups (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, username) REFERENCES registry.tenant_users (tenant_id, username) ON DELETE CASCADE
);

-- Deprovisioned directory users whose grants, tokens and vault entries the auth service still has
-- to purge: written in the transaction that deprovisions, deleted once auth confirms.
CREATE TABLE registry.user_revocations (
  id bigserial PRIMARY KEY,
  tenant_id text NOT NULL,
  username text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  next_try_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE registry.user_revocations;
DROP TABLE registry.scim_group_members;
DROP TABLE registry.scim_groups;
DROP INDEX registry.tenant_users_external_id;
DROP INDEX registry.tenant_users_scim_id;
ALTER TABLE registry.tenant_users DROP COLUMN scim_updated_at, DROP COLUMN scim_attrs, DROP COLUMN external_id, DROP COLUMN scim_id;
DROP TABLE registry.scim_tokens;
ALTER TABLE registry.tenant_admins DROP COLUMN source;
DELETE FROM registry.tenant_admins WHERE password_hash IS NULL;
ALTER TABLE registry.tenant_admins ALTER COLUMN password_hash SET NOT NULL;
DROP TABLE registry.console_sso;
