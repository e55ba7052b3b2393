-- Up Migration
-- Device authorization (RFC 8628) on the platform issuer: a device code is found by the user
-- code the person types, kept as a hash like every other id.
ALTER TABLE oidc_model ADD COLUMN user_code_hash text;
CREATE INDEX oidc_model_user_code ON oidc_model (tenant_id, model, user_code_hash) WHERE user_code_hash IS NOT NULL;

-- Down Migration
DROP INDEX oidc_model_user_code;
ALTER TABLE oidc_model DROP COLUMN user_code_hash;
