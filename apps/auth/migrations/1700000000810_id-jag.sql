-- Up Migration
-- Issue 44: Enterprise-Managed Authorization. Every ID-JAG `jti` is accepted once per tenant and
-- issuer until the assertion expires (expired rows are deleted as new ones arrive), and every
-- JWT-bearer answer, granted or refused (with the refusing check), is recorded for the audit.
CREATE TABLE id_jag_jti (
  tenant_id  text        NOT NULL,
  issuer     text        NOT NULL,
  jti_hash   text        NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, issuer, jti_hash)
);
CREATE INDEX id_jag_jti_expiry ON id_jag_jti (expires_at);

CREATE TABLE id_jag_audit (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id  text        NOT NULL,
  outcome    text        NOT NULL,
  check_name text        NOT NULL,
  issuer     text,
  client_id  text,
  subject    text,
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX id_jag_audit_tenant ON id_jag_audit (tenant_id, id);

-- Down Migration
DROP TABLE id_jag_audit;
DROP TABLE id_jag_jti;
