-- Up Migration
-- Issue 41: subjects now carry their identity source (`<tenant>|<idp-id>|<sub>`). Vault rows
-- stored under the old `<tenant>|<sub>` subjects cannot be told apart by IdP (a tenant may have
-- changed its IdP since, and an old name may now belong to someone else), so they are purged
-- here, before the service serves, and the users link their accounts again. The tenant admin's
-- own link (`_tenant_admin`) is not an end-user identity and stays. What was purged is recorded
-- per tenant; the service reports it to the registry's audit log at boot (audited_at).
CREATE TABLE vault_legacy_purge (
  id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id   text        NOT NULL,
  rows_purged integer     NOT NULL,
  connectors  jsonb       NOT NULL,
  purged_at   timestamptz NOT NULL DEFAULT now(),
  audited_at  timestamptz
);
INSERT INTO vault_legacy_purge (tenant_id, rows_purged, connectors)
  SELECT tenant_id, count(*), jsonb_agg(DISTINCT connector) FROM vault_token WHERE subject <> '_tenant_admin' GROUP BY tenant_id;
DELETE FROM vault_token WHERE subject <> '_tenant_admin';

-- Down Migration
DROP TABLE vault_legacy_purge;
