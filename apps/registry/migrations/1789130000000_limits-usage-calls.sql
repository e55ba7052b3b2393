-- Up Migration
-- Issue 13: a tenant's rate plan and call-log policy (both travel to gateways inside the
-- tenant document's `limits` object), usage rollups tenant × day × server × tool × subject
-- drained in batches from the gateways' Redis stream, and the per-call log.
ALTER TABLE registry.tenants ADD COLUMN rate_plan jsonb;
ALTER TABLE registry.tenants ADD COLUMN call_log jsonb NOT NULL DEFAULT '{}'::jsonb;

CREATE TABLE registry.usage_daily (
  tenant_id    text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  day          date NOT NULL,
  server_id    text NOT NULL,
  tool         text NOT NULL,
  subject      text NOT NULL,
  calls        bigint NOT NULL DEFAULT 0,
  errors       bigint NOT NULL DEFAULT 0,
  tool_errors  bigint NOT NULL DEFAULT 0,
  rate_limited bigint NOT NULL DEFAULT 0,
  bytes_in     bigint NOT NULL DEFAULT 0,
  bytes_out    bigint NOT NULL DEFAULT 0,
  duration_ms  double precision NOT NULL DEFAULT 0,
  -- Latency histogram: counts per upper bound of USAGE_LATENCY_BUCKETS_MS (last = +Inf).
  latency      bigint[] NOT NULL,
  PRIMARY KEY (tenant_id, day, server_id, tool, subject)
);
CREATE INDEX usage_daily_day ON registry.usage_daily (day);

CREATE TABLE registry.tool_calls (
  id          bigserial PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES registry.tenants(id) ON DELETE CASCADE,
  at          timestamptz NOT NULL,
  subject     text NOT NULL,
  client_id   text,
  surface     text NOT NULL,
  method      text NOT NULL,
  tool        text NOT NULL,
  server_id   text NOT NULL,
  outcome     text NOT NULL,
  error_code  integer,
  duration_ms double precision NOT NULL,
  bytes_in    integer NOT NULL,
  bytes_out   integer NOT NULL,
  arguments   jsonb,
  result      jsonb
);
CREATE INDEX tool_calls_tenant ON registry.tool_calls (tenant_id, id DESC);
CREATE INDEX tool_calls_at ON registry.tool_calls (at);

-- Down Migration
DROP TABLE registry.tool_calls;
DROP TABLE registry.usage_daily;
ALTER TABLE registry.tenants DROP COLUMN call_log;
ALTER TABLE registry.tenants DROP COLUMN rate_plan;
