-- Up Migration
-- The transport that worked at the last successful discovery (`transport` stays what the tenant
-- configured): a 2024-11-05 server reached over legacy HTTP+SSE must be called over it too.
ALTER TABLE registry.servers
  ADD COLUMN transport_spoken text CHECK (transport_spoken IN ('streamable-http', 'sse'));

-- Down Migration
ALTER TABLE registry.servers
  DROP COLUMN transport_spoken;
