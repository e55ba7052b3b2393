-- Up Migration
-- Upstream tokens a connector obtained from a user's enterprise identity (token exchange, cross-app
-- access): sealed, bound to (tenant, subject, connector) and to the grant settings they came from,
-- and dropped once expired. Only a cache: losing a row costs one exchange.
CREATE TABLE grant_token (
  tenant_id   text        NOT NULL,
  subject     text        NOT NULL,
  connector   text        NOT NULL,
  grant_key   text        NOT NULL,
  sealed      text        NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, subject, connector)
);
CREATE INDEX grant_token_expiry ON grant_token (tenant_id, expires_at);

-- Down Migration
DROP TABLE grant_token;
