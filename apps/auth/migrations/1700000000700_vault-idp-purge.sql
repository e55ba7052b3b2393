-- Up Migration
-- Issue 41: when a tenant's identity provider changes, the vault rows, oidc-provider artefacts and
-- link states of identity sources that are no longer the tenant's are purged (idp-change-purge.ts).
-- Each purge is recorded here in the transaction that deleted the rows, then reported to the
-- registry's audit log (audited_at); `report_until` leases a record to one reporting replica.
CREATE TABLE vault_idp_purge (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id    text        NOT NULL,
  kept         jsonb       NOT NULL,
  sources      jsonb       NOT NULL,
  rows_purged  integer     NOT NULL,
  connectors   jsonb       NOT NULL,
  artefacts    integer     NOT NULL,
  link_states  integer     NOT NULL,
  purged_at    timestamptz NOT NULL DEFAULT now(),
  report_until timestamptz,
  audited_at   timestamptz
);
CREATE INDEX vault_idp_purge_unaudited ON vault_idp_purge (id) WHERE audited_at IS NULL;

-- The identity sources each tenant was last reconciled against: a boot or a new tenant document
-- with the same sources costs one read, and replicas agree on when the sources changed.
CREATE TABLE tenant_identity_sources (
  tenant_id     text        PRIMARY KEY,
  sources       text        NOT NULL,
  reconciled_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE tenant_identity_sources;
DROP TABLE vault_idp_purge;
