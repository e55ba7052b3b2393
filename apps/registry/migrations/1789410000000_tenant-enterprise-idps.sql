-- Up Migration
-- Issue 44: the enterprise IdPs a tenant trusts for Enterprise-Managed Authorization (ID-JAG):
-- issuer, JWKS URL, allowed clients, subject/groups claims and group → scope mapping, as the
-- tenant document's `auth.enterpriseIdps` carries them (validated by the catalog's schema; no secrets).
ALTER TABLE registry.tenant_auth ADD COLUMN enterprise_idps jsonb NOT NULL DEFAULT '[]'::jsonb;

-- Down Migration
ALTER TABLE registry.tenant_auth DROP COLUMN enterprise_idps;
