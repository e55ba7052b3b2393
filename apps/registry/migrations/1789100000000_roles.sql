-- Up Migration
-- Roles for console admins and API keys (issue 11 item 6): viewer reads; publisher reviews and
-- publishes; admin changes servers, auth and limits; owner manages admins and keys. Existing
-- admins and keys keep full power (owner).
ALTER TABLE registry.api_keys ADD COLUMN role text NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'admin', 'publisher', 'viewer'));
ALTER TABLE registry.tenant_admins ADD COLUMN role text NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'admin', 'publisher', 'viewer'));

-- Down Migration
ALTER TABLE registry.tenant_admins DROP COLUMN role;
ALTER TABLE registry.api_keys DROP COLUMN role;
