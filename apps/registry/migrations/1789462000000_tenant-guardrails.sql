-- Up Migration
-- Issue 46 item 1: the tenant's interceptor chain (guardrails), as set through PUT /v1/guardrails.
-- Webhook secrets inside it are sealed (SecretBox, AAD tenantSecretAad(tenant, 'guardrail:<name>')).
-- NULL: no interceptors. Not in the publish outbox trigger: a change is pushed at once, like limits.
ALTER TABLE registry.tenants ADD COLUMN guardrails jsonb;

-- Down Migration
ALTER TABLE registry.tenants DROP COLUMN guardrails;
