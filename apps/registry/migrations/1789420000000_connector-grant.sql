-- Up Migration
-- How a connector obtains upstream tokens from the user's enterprise identity (RFC 8693 token
-- exchange or cross-app access); NULL ⇒ linked accounts only. A cross-app IdP secret inside is sealed.
ALTER TABLE registry.tenant_connectors ADD COLUMN grant_settings jsonb;

-- Down Migration
ALTER TABLE registry.tenant_connectors DROP COLUMN grant_settings;
