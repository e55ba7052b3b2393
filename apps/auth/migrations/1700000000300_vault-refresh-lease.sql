-- Up Migration
-- A refresh of a vaulted token is claimed with a lease (who, until when) in a short transaction;
-- the upstream call runs without a pooled connection and the result is written if the lease is still ours.
ALTER TABLE vault_token ADD COLUMN refresh_lease text;
ALTER TABLE vault_token ADD COLUMN refreshing_until timestamptz;
-- Counting a tenant's refreshes in flight (the per-tenant cap) reads only leased rows.
CREATE INDEX vault_token_refreshing ON vault_token (tenant_id) WHERE refreshing_until IS NOT NULL;

-- Down Migration
DROP INDEX vault_token_refreshing;
ALTER TABLE vault_token DROP COLUMN refreshing_until;
ALTER TABLE vault_token DROP COLUMN refresh_lease;
