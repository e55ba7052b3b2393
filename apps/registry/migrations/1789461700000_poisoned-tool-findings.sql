-- Up Migration
-- Issue 46 item 4: what the poisoned-tool scanner found in each discovered definition (bounded
-- list, set by discovery) and the tenant setting that refuses publishing high-severity findings.
ALTER TABLE registry.discovered_items ADD COLUMN findings jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE registry.tenants ADD COLUMN block_poisoned boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE registry.tenants DROP COLUMN block_poisoned;
ALTER TABLE registry.discovered_items DROP COLUMN findings;
