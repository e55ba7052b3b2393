-- Up Migration
-- Issue 42: a server's "dynamic resources" publication setting (URI prefixes whose unlisted
-- resources the gateway reads from this server); null = off, the default.
ALTER TABLE registry.servers ADD COLUMN dynamic_resources jsonb;

-- The setting is part of what a snapshot is compiled from: a change must reach the outbox too.
DROP TRIGGER servers_outbox ON registry.servers;
CREATE TRIGGER servers_outbox AFTER UPDATE OF url, stateful, timeout_ms, max_concurrency, dynamic_resources ON registry.servers
  FOR EACH ROW WHEN (OLD.url IS DISTINCT FROM NEW.url OR OLD.stateful IS DISTINCT FROM NEW.stateful
    OR OLD.timeout_ms IS DISTINCT FROM NEW.timeout_ms OR OLD.max_concurrency IS DISTINCT FROM NEW.max_concurrency
    OR OLD.dynamic_resources IS DISTINCT FROM NEW.dynamic_resources)
  EXECUTE FUNCTION registry.publish_outbox_touch();

-- Down Migration
DROP TRIGGER servers_outbox ON registry.servers;
CREATE TRIGGER servers_outbox AFTER UPDATE OF url, stateful, timeout_ms, max_concurrency ON registry.servers
  FOR EACH ROW WHEN (OLD.url IS DISTINCT FROM NEW.url OR OLD.stateful IS DISTINCT FROM NEW.stateful
    OR OLD.timeout_ms IS DISTINCT FROM NEW.timeout_ms OR OLD.max_concurrency IS DISTINCT FROM NEW.max_concurrency)
  EXECUTE FUNCTION registry.publish_outbox_touch();
ALTER TABLE registry.servers DROP COLUMN dynamic_resources;
