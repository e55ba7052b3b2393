-- Up Migration
-- Audit export (issue 48): each tenant's audit log streamed to its own S3-compatible bucket.
--
-- audit_log.txid is the writing transaction's id. Ids (bigserial) are taken before commit, so a
-- smaller id can become visible after a larger one; the exporter therefore walks the log in
-- (txid, id) order and only reads rows whose transaction is older than every running one
-- (txid < pg_snapshot_xmin), which makes what it has read a prefix that never gains a row
-- before its cursor. Rows written before this migration share the migration's txid.
ALTER TABLE registry.audit_log ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX audit_log_tenant_txid ON registry.audit_log (tenant_id, txid, id);

CREATE TABLE registry.audit_exports (
  tenant_id text PRIMARY KEY REFERENCES registry.tenants(id) ON DELETE CASCADE,
  enabled boolean NOT NULL DEFAULT true,
  endpoint text NOT NULL,
  bucket text NOT NULL,
  region text NOT NULL,
  prefix text NOT NULL DEFAULT '',
  path_style boolean NOT NULL DEFAULT true,
  access_key_id text NOT NULL,
  -- SecretBox blob, AAD `audit-export-secret:<tenant>`.
  secret_sealed text NOT NULL,
  -- The last exported entry, in (txid, id) order; advanced only after its object was written.
  cursor_txid xid8 NOT NULL DEFAULT '0',
  cursor_id bigint NOT NULL DEFAULT 0,
  exported bigint NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ok', 'error')),
  last_error text,
  last_error_at timestamptz,
  last_export_at timestamptz,
  failures integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Bumped by every save: a failure of an attempt made with older settings is not recorded.
  settings_version integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_exports_due ON registry.audit_exports (next_attempt_at) WHERE enabled;

-- Down Migration
DROP TABLE registry.audit_exports;
DROP INDEX registry.audit_log_tenant_txid;
ALTER TABLE registry.audit_log DROP COLUMN txid;
