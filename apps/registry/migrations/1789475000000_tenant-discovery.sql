-- Up Migration
-- Issue 45: progressive discovery settings per tenant and surface (the tenant document's
-- `discovery`: mode, threshold, pinned tools, per-surface overrides); NULL = full lists everywhere.
ALTER TABLE registry.tenants ADD COLUMN discovery jsonb;

-- Down Migration
ALTER TABLE registry.tenants DROP COLUMN discovery;
