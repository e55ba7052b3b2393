-- Up Migration
-- Issue 49: an incremental feed of catalog versions (`GET /internal/catalog-versions?since=`)
-- instead of every tenant in one answer. version_txid is the transaction that last changed a
-- tenant's current_version; the feed reads in (txid, id) order and only rows whose transaction
-- is older than every running one (txid < pg_snapshot_xmin), so what a reader has seen is a
-- prefix that never gains a row before its cursor (the audit exporter's scheme). Rows that
-- exist before this migration share its txid (ties are broken by id).
ALTER TABLE registry.tenants ADD COLUMN version_txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX tenants_version_feed ON registry.tenants (version_txid, id);

CREATE FUNCTION registry.tenants_version_txid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.current_version IS DISTINCT FROM OLD.current_version THEN
    NEW.version_txid := pg_current_xact_id();
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER tenants_version_txid BEFORE UPDATE OF current_version ON registry.tenants
  FOR EACH ROW EXECUTE FUNCTION registry.tenants_version_txid();

-- A deleted tenant stays in the feed (version null) so incremental readers drop it too.
CREATE TABLE registry.catalog_removals (
  tenant_id text PRIMARY KEY,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX catalog_removals_feed ON registry.catalog_removals (txid, tenant_id);

CREATE FUNCTION registry.tenants_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO registry.catalog_removals (tenant_id) VALUES (OLD.id)
      ON CONFLICT (tenant_id) DO UPDATE SET txid = pg_current_xact_id();
    RETURN OLD;
  END IF;
  DELETE FROM registry.catalog_removals WHERE tenant_id = NEW.id;
  RETURN NEW;
END $$;
CREATE TRIGGER tenants_removal AFTER INSERT OR DELETE ON registry.tenants
  FOR EACH ROW EXECUTE FUNCTION registry.tenants_removal();

-- Down Migration
DROP TRIGGER tenants_removal ON registry.tenants;
DROP FUNCTION registry.tenants_removal();
DROP TABLE registry.catalog_removals;
DROP TRIGGER tenants_version_txid ON registry.tenants;
DROP FUNCTION registry.tenants_version_txid();
DROP INDEX registry.tenants_version_feed;
ALTER TABLE registry.tenants DROP COLUMN version_txid;
