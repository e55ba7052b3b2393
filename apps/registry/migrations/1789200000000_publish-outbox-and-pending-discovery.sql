-- Up Migration
-- Publish outbox (issue 12): a change to what a tenant's snapshot is compiled from leaves a row
-- here in the same transaction, written by triggers so no write path can forget it. Publishing
-- deletes the row in the transaction that commits the new snapshot. A row that survives means a
-- process died between committing the change and publishing it: boot reconciliation (and the
-- periodic verification) publishes it, so Postgres, Redis and gateways converge on one version.
CREATE TABLE registry.publish_outbox (
  tenant_id text PRIMARY KEY REFERENCES registry.tenants(id) ON DELETE CASCADE,
  requested_at timestamptz NOT NULL DEFAULT now(),
  source text NOT NULL
);

CREATE FUNCTION registry.publish_outbox_touch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t text;
BEGIN
  IF TG_TABLE_NAME = 'tenants' THEN
    t := NEW.id;
  ELSIF TG_OP = 'DELETE' THEN
    t := OLD.tenant_id;
  ELSE
    t := NEW.tenant_id;
  END IF;
  -- A cascading delete of the tenant itself: nothing left to publish.
  IF NOT EXISTS (SELECT 1 FROM registry.tenants WHERE id = t) THEN
    RETURN NULL;
  END IF;
  INSERT INTO registry.publish_outbox (tenant_id, source) VALUES (t, TG_TABLE_NAME)
    ON CONFLICT (tenant_id) DO UPDATE SET requested_at = now(), source = EXCLUDED.source;
  RETURN NULL;
END;
$$;

CREATE TRIGGER publications_outbox AFTER INSERT OR UPDATE OR DELETE ON registry.publications
  FOR EACH ROW EXECUTE FUNCTION registry.publish_outbox_touch();
-- Only the columns a snapshot is compiled from (routes carry url, stateful, timeout, concurrency).
CREATE TRIGGER servers_outbox AFTER UPDATE OF url, stateful, timeout_ms, max_concurrency ON registry.servers
  FOR EACH ROW WHEN (OLD.url IS DISTINCT FROM NEW.url OR OLD.stateful IS DISTINCT FROM NEW.stateful
    OR OLD.timeout_ms IS DISTINCT FROM NEW.timeout_ms OR OLD.max_concurrency IS DISTINCT FROM NEW.max_concurrency)
  EXECUTE FUNCTION registry.publish_outbox_touch();
CREATE TRIGGER tenants_outbox AFTER UPDATE OF name, description, instructions, origins, hosts, surface_rules ON registry.tenants
  FOR EACH ROW EXECUTE FUNCTION registry.publish_outbox_touch();

-- A discovery requested while Redis (the job queue) is down: recorded here with its reason and
-- enqueued by the registry when Redis is back (null: nothing waits).
ALTER TABLE registry.servers ADD COLUMN discovery_pending text;

-- Down Migration
ALTER TABLE registry.servers DROP COLUMN discovery_pending;
DROP TRIGGER tenants_outbox ON registry.tenants;
DROP TRIGGER servers_outbox ON registry.servers;
DROP TRIGGER publications_outbox ON registry.publications;
DROP FUNCTION registry.publish_outbox_touch();
DROP TABLE registry.publish_outbox;
