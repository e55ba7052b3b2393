-- Up Migration
-- Issue 49: the call log (daily) and usage rollups (monthly) become range-partitioned by time,
-- so retention drops whole partitions instead of deleting rows, and queries over a period only
-- read its partitions. The registry's maintenance job creates partitions ahead and drops those
-- past retention (src/usage/partitions.ts); a DEFAULT partition catches rows outside them (a
-- record with a skewed clock), and creating a partition moves its rows out of the default.
-- Existing rows are copied into the new tables inside this migration's transaction (the tables
-- are locked meanwhile; the copy is one INSERT … SELECT per table).

-- Creates registry.<part> as the [lo, hi) partition of registry.<parent> (column <col>), moving
-- matching rows out of <parent>_default first; false when it exists. One caller at a time.
CREATE FUNCTION registry.create_time_partition(parent text, part text, col text, lo text, hi text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('registry-partitions'));
  IF to_regclass(format('registry.%I', part)) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format(
    'CREATE TEMP TABLE moved_rows ON COMMIT DROP AS WITH d AS (DELETE FROM registry.%I WHERE %I >= %L AND %I < %L RETURNING *) SELECT * FROM d',
    parent || '_default', col, lo, col, hi);
  EXECUTE format('CREATE TABLE registry.%I PARTITION OF registry.%I FOR VALUES FROM (%L) TO (%L)', part, parent, lo, hi);
  EXECUTE format('INSERT INTO registry.%I SELECT * FROM moved_rows', parent);
  DROP TABLE moved_rows;
  RETURN true;
END $$;

-- The call log, partitioned by day (UTC). The primary key must hold the partition key.
ALTER TABLE registry.tool_calls RENAME TO tool_calls_unpartitioned;
ALTER INDEX registry.tool_calls_pkey RENAME TO tool_calls_unpartitioned_pkey;
ALTER INDEX registry.tool_calls_tenant RENAME TO tool_calls_unpartitioned_tenant;
ALTER INDEX registry.tool_calls_at RENAME TO tool_calls_unpartitioned_at;
CREATE TABLE registry.tool_calls (
  id          bigint NOT NULL DEFAULT nextval('registry.tool_calls_id_seq'),
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
  result      jsonb,
  PRIMARY KEY (id, at)
) PARTITION BY RANGE (at);
CREATE INDEX tool_calls_tenant ON registry.tool_calls (tenant_id, id DESC);
CREATE INDEX tool_calls_at ON registry.tool_calls (at);
CREATE TABLE registry.tool_calls_default PARTITION OF registry.tool_calls DEFAULT;

-- Usage rollups, partitioned by month.
ALTER TABLE registry.usage_daily RENAME TO usage_daily_unpartitioned;
ALTER INDEX registry.usage_daily_pkey RENAME TO usage_daily_unpartitioned_pkey;
ALTER INDEX registry.usage_daily_day RENAME TO usage_daily_unpartitioned_day;
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
) PARTITION BY RANGE (day);
CREATE INDEX usage_daily_day ON registry.usage_daily (day);
CREATE TABLE registry.usage_daily_default PARTITION OF registry.usage_daily DEFAULT;

-- Partitions for the existing rows within the longest retentions (365 days of calls, 10 years of
-- rollups) and a week / two months ahead; older or far-future rows land in the defaults.
-- Days are UTC days whatever the session's TimeZone (the maintenance job names partitions in UTC).
DO $$
DECLARE
  d date;
  first date;
  today date := (now() AT TIME ZONE 'UTC')::date;
BEGIN
  SELECT GREATEST(COALESCE((min(at) AT TIME ZONE 'UTC')::date, today), today - 366) INTO first FROM registry.tool_calls_unpartitioned;
  d := LEAST(first, today);
  WHILE d <= today + 7 LOOP
    PERFORM registry.create_time_partition('tool_calls', 'tool_calls_p' || to_char(d, 'YYYYMMDD'), 'at',
      to_char(d, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(d + 1, 'YYYY-MM-DD') || ' 00:00:00+00');
    d := d + 1;
  END LOOP;
  SELECT GREATEST(COALESCE(min(day), today), today - 3660) INTO first FROM registry.usage_daily_unpartitioned;
  d := date_trunc('month', LEAST(first, today))::date;
  WHILE d <= date_trunc('month', today)::date + interval '2 months' LOOP
    PERFORM registry.create_time_partition('usage_daily', 'usage_daily_p' || to_char(d, 'YYYYMM'), 'day',
      to_char(d, 'YYYY-MM-DD'), to_char(d + interval '1 month', 'YYYY-MM-DD'));
    d := d + interval '1 month';
  END LOOP;
END $$;

INSERT INTO registry.tool_calls SELECT * FROM registry.tool_calls_unpartitioned;
ALTER SEQUENCE registry.tool_calls_id_seq OWNED BY registry.tool_calls.id;
DROP TABLE registry.tool_calls_unpartitioned;
INSERT INTO registry.usage_daily SELECT * FROM registry.usage_daily_unpartitioned;
DROP TABLE registry.usage_daily_unpartitioned;

-- Down Migration
-- Back to plain tables (named constraints, so a later up finds the names it renames).
CREATE TABLE registry.tool_calls_flat (LIKE registry.tool_calls INCLUDING DEFAULTS);
INSERT INTO registry.tool_calls_flat SELECT * FROM registry.tool_calls;
ALTER SEQUENCE registry.tool_calls_id_seq OWNED BY registry.tool_calls_flat.id;
DROP TABLE registry.tool_calls;
ALTER TABLE registry.tool_calls_flat RENAME TO tool_calls;
ALTER TABLE registry.tool_calls ADD CONSTRAINT tool_calls_pkey PRIMARY KEY (id);
ALTER TABLE registry.tool_calls ADD CONSTRAINT tool_calls_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES registry.tenants(id) ON DELETE CASCADE;
CREATE INDEX tool_calls_tenant ON registry.tool_calls (tenant_id, id DESC);
CREATE INDEX tool_calls_at ON registry.tool_calls (at);
CREATE TABLE registry.usage_daily_flat (LIKE registry.usage_daily INCLUDING DEFAULTS);
INSERT INTO registry.usage_daily_flat SELECT * FROM registry.usage_daily;
DROP TABLE registry.usage_daily;
ALTER TABLE registry.usage_daily_flat RENAME TO usage_daily;
ALTER TABLE registry.usage_daily ADD CONSTRAINT usage_daily_pkey PRIMARY KEY (tenant_id, day, server_id, tool, subject);
ALTER TABLE registry.usage_daily ADD CONSTRAINT usage_daily_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES registry.tenants(id) ON DELETE CASCADE;
CREATE INDEX usage_daily_day ON registry.usage_daily (day);
DROP FUNCTION registry.create_time_partition(text, text, text, text, text);
