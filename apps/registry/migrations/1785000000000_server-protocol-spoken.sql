-- Up Migration
-- The protocol a server spoke at its last successful discovery. `transport` stays what the
-- tenant configured (auto / streamable-http / sse); these record what actually worked, so a
-- 2026-07-28-only upstream (stateless, `server/discover`) is told apart from a 2025-era one.
ALTER TABLE registry.servers
  ADD COLUMN protocol_era text CHECK (protocol_era IN ('modern', 'legacy')),
  ADD COLUMN protocol_version text;

-- Down Migration
ALTER TABLE registry.servers
  DROP COLUMN protocol_version,
  DROP COLUMN protocol_era;
