-- Up Migration
-- Dynamically registered clients expire when unused (DCR_CLIENT_IDLE_DAYS) and count against a
-- per-tenant cap (DCR_MAX_CLIENTS_PER_TENANT). last_used_at is touched at most once per
-- touch interval (a read finds it stale, then one UPDATE), not on every token request.
ALTER TABLE oidc_model ADD COLUMN last_used_at timestamptz;
-- Clients registered before this migration start a fresh idle period instead of expiring at once.
UPDATE oidc_model SET last_used_at = now() WHERE model = 'Client';
CREATE INDEX oidc_model_client_used ON oidc_model (tenant_id, last_used_at) WHERE model = 'Client';

-- Down Migration
DROP INDEX oidc_model_client_used;
ALTER TABLE oidc_model DROP COLUMN last_used_at;
