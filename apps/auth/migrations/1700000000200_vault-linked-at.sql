-- Up Migration
-- When a user first linked an upstream account (the connected-accounts page shows it; updated_at is the last refresh).
ALTER TABLE vault_token ADD COLUMN linked_at timestamptz NOT NULL DEFAULT now();

-- Down Migration
ALTER TABLE vault_token DROP COLUMN linked_at;
