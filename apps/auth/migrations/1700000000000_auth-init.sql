-- Up Migration
-- oidc-provider artefacts of every tenant (codes, refresh tokens, sessions, grants, clients, ...).
-- id_hash is SHA-256 of the artefact id: a database dump holds no usable bearer value.
CREATE TABLE oidc_model (
  tenant_id   text        NOT NULL,
  model       text        NOT NULL,
  id_hash     text        NOT NULL,
  payload     jsonb       NOT NULL,
  grant_id    text,
  uid_hash    text,
  expires_at  timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (tenant_id, model, id_hash)
);
CREATE INDEX oidc_model_grant ON oidc_model (tenant_id, grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_model_uid ON oidc_model (tenant_id, model, uid_hash) WHERE uid_hash IS NOT NULL;
CREATE INDEX oidc_model_expires ON oidc_model (expires_at) WHERE expires_at IS NOT NULL;

-- Per-tenant ES256 signing keys, private JWK sealed with SECRETS_KEY.
CREATE TABLE signing_key (
  tenant_id   text        NOT NULL,
  kid         text        NOT NULL,
  private_jwk text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  activated_at timestamptz,
  retired_at  timestamptz,
  PRIMARY KEY (tenant_id, kid)
);

-- Upstream-IdP login in progress: single use, bound to the browser by a cookie holding `state`.
CREATE TABLE federation_state (
  state_hash  text        PRIMARY KEY,
  tenant_id   text        NOT NULL,
  purpose     text        NOT NULL,
  data        text        NOT NULL,
  expires_at  timestamptz NOT NULL
);

-- Per-user tokens for upstream connectors, sealed with SECRETS_KEY.
CREATE TABLE vault_token (
  tenant_id   text        NOT NULL,
  subject     text        NOT NULL,
  connector   text        NOT NULL,
  sealed      text        NOT NULL,
  expires_at  timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, subject, connector)
);

-- Down Migration
DROP TABLE vault_token;
DROP TABLE federation_state;
DROP TABLE signing_key;
DROP TABLE oidc_model;
