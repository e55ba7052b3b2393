import type { RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import { emitLimitReached } from '../model/emit-limit-reached';
import {
  decodeUsageBatch,
  redactCaptured,
  USAGE_BATCH_FIELD,
  USAGE_LATENCY_BUCKETS_MS,
  USAGE_RECORDS_FIELD,
  usageStreamKey,
  type UsageRecord,
} from '@switchboard/limits';
import type { Database, Queryable } from '../db/database';
import { maintainPartitions, type PartitionChanges } from './partitions';

export interface UsageDrainerOptions {
  /** A dedicated connection (XREADGROUP blocks it). */
  redis: RedisClient;
  namespace: string;
  /** This registry replica's consumer name in the `usage` group (replicas share the stream). */
  consumer: string;
  /** Stream entries read per batch (each holds up to a gateway's USAGE_MAX_BATCH records). */
  count: number;
  /** Pending entries of a consumer that died are taken over after this long (ms). */
  claimIdleMs: number;
  /** Call records older than a tenant's `callLog.retentionDays` (default this) are deleted; rollups after usageRetentionDays. */
  callRetentionDays: number;
  usageRetentionDays: number;
  logger: Logger;
}

const GROUP = 'usage';
/** Partitions exist this far ahead, so a maintenance run missed for days costs nothing (rows would land in the default partition). */
const PARTITION_DAYS_AHEAD = 7;
const PARTITION_MONTHS_AHEAD = 2;
const LOGGED: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);
const MAX_FIELD = 512;

type Rollup = {
  tenant: string;
  day: string;
  server: string;
  tool: string;
  subject: string;
  calls: number;
  errors: number;
  toolErrors: number;
  rateLimited: number;
  bytesIn: number;
  bytesOut: number;
  ms: number;
  latency: number[];
};

/**
 * Drains the gateways' usage stream into Postgres in batches: rollups per tenant × day ×
 * server × tool × subject (one multi-row upsert per batch) and the call log (one multi-row
 * insert), then acknowledges the entries. At-least-once: a crash between commit and XACK
 * counts that batch again (documented). Also applies the retention of calls and rollups.
 */
export class UsageDrainer {
  private readonly key: string;
  private running = false;
  private loop: Promise<void> | undefined;
  private retention: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: UsageDrainerOptions,
  ) {
    this.key = usageStreamKey(options.namespace);
    // Errors surface through the loop's commands; an unhandled 'error' event would crash the process.
    options.redis.on('error', () => undefined);
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
    this.retention = setInterval(() => void this.applyRetention().catch(() => undefined), 10 * 60_000);
    this.retention.unref();
    void this.applyRetention().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.retention) clearInterval(this.retention);
    this.options.redis.disconnect();
    await this.loop?.catch(() => undefined);
  }

  /** Reads and stores one batch; returns how many records it stored (tests and the loop). */
  async drainOnce(blockMs = 1_000): Promise<number> {
    const r = this.options.redis;
    await this.ensureGroup();
    // Read as bytes: batches are binary (the per-record JSON of older gateways is decoded from them).
    // (ioredis has a *Buffer twin of every command, shaped like its reply, but does not type these two.)
    const rb = r as unknown as BufferReads;
    const claimed = (await rb.xautoclaimBuffer(
      this.key,
      GROUP,
      this.options.consumer,
      this.options.claimIdleMs,
      '0',
      'COUNT',
      this.options.count,
    )) as [Buffer, Entry[]];
    let entries = claimed[1] ?? [];
    if (entries.length === 0) {
      const read = (await rb.xreadgroupBuffer(
        'GROUP',
        GROUP,
        this.options.consumer,
        'COUNT',
        this.options.count,
        'BLOCK',
        blockMs,
        'STREAMS',
        this.key,
        '>',
      )) as Array<[Buffer, Entry[]]> | null;
      entries = read?.[0]?.[1] ?? [];
    }
    if (entries.length === 0) return 0;
    const records: UsageRecord[] = [];
    // A malformed entry or record is dropped (acknowledged below) rather than blocking the stream.
    for (const [, fields] of entries) for (const x of entryRecords(fields)) if (valid(x)) records.push(x);
    await this.store(records);
    const ids = entries.map(([id]) => id);
    await r.xack(this.key, GROUP, ...ids);
    await r.xdel(this.key, ...ids);
    return records.length;
  }

  /**
   * The maintenance job: creates the partitions ahead, drops those wholly past retention (the
   * longest any tenant keeps calls), then deletes the call records past each tenant's own
   * retention and rollups past the usage retention within the partitions that remain.
   */
  async applyRetention(): Promise<PartitionChanges> {
    const longest = await this.db.query<{ days: number | null }>(
      "SELECT max((call_log->>'retentionDays')::int) AS days FROM registry.tenants WHERE call_log ? 'retentionDays'",
    );
    const changes = await maintainPartitions(this.db, {
      callDaysAhead: PARTITION_DAYS_AHEAD,
      usageMonthsAhead: PARTITION_MONTHS_AHEAD,
      callRetentionDays: Math.max(this.options.callRetentionDays, longest[0]?.days ?? 0),
      usageRetentionDays: this.options.usageRetentionDays,
    });
    if (changes.created.length + changes.dropped.length > 0) this.options.logger.info(changes, 'usage / call-log partitions maintained');
    await this.db.query(
      `DELETE FROM registry.tool_calls c USING registry.tenants t
        WHERE c.tenant_id = t.id AND c.at < now() - make_interval(days => COALESCE((t.call_log->>'retentionDays')::int, $1))`,
      [this.options.callRetentionDays],
    );
    await this.db.query('DELETE FROM registry.usage_daily WHERE day < (now() - make_interval(days => $1))::date', [
      this.options.usageRetentionDays,
    ]);
    return changes;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        await this.drainOnce();
        failures = 0;
      } catch (err) {
        if (!this.running) return;
        if (failures++ === 0) this.options.logger.warn({ err: (err as Error).message }, 'usage drain failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 200 * failures)));
      }
    }
  }

  private async ensureGroup(): Promise<void> {
    try {
      await this.options.redis.xgroup('CREATE', this.key, GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err as Error).message.startsWith('BUSYGROUP')) throw err;
    }
  }

  private async store(records: UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    const tenants = await this.db.query<{ id: string }>('SELECT id FROM registry.tenants WHERE id = ANY($1)', [
      [...new Set(records.map((x) => x.tenant))],
    ]);
    const known = new Set(tenants.map((t) => t.id));
    const { rows, calls } = rollUp(records, known);
    await this.db.tx(async (q) => {
      await insertRollups(q, rows);
      await insertCalls(q, calls);
      for (const [tenant, refused] of rateLimitedByTenant(rows)) await emitLimitReached(q, tenant, refused);
    });
  }
}

/** Folds a batch into one rollup per tenant, day, server, tool and subject, and keeps the calls the call log records (known tenants only). */
function rollUp(records: UsageRecord[], known: ReadonlySet<string>): { rows: Rollup[]; calls: UsageRecord[] } {
  const rollups = new Map<string, Rollup>();
  const calls: UsageRecord[] = [];
  for (const rec of records) {
    if (!known.has(rec.tenant)) continue;
    const day = new Date(rec.t).toISOString().slice(0, 10);
    const k = JSON.stringify([rec.tenant, day, rec.server, rec.tool, rec.subject]);
    let u = rollups.get(k);
    if (!u) {
      u = {
        tenant: rec.tenant,
        day,
        server: rec.server,
        tool: rec.tool,
        subject: rec.subject,
        calls: 0,
        errors: 0,
        toolErrors: 0,
        rateLimited: 0,
        bytesIn: 0,
        bytesOut: 0,
        ms: 0,
        latency: new Array<number>(USAGE_LATENCY_BUCKETS_MS.length + 1).fill(0),
      };
      rollups.set(k, u);
    }
    u.calls++;
    if (rec.outcome === 'error') u.errors++;
    else if (rec.outcome === 'tool_error') u.toolErrors++;
    else if (rec.outcome === 'rate_limited') u.rateLimited++;
    u.bytesIn += rec.in;
    u.bytesOut += rec.out;
    u.ms += rec.ms;
    const bucket = USAGE_LATENCY_BUCKETS_MS.findIndex((b) => rec.ms <= b);
    u.latency[bucket === -1 ? USAGE_LATENCY_BUCKETS_MS.length : bucket]++;
    if (LOGGED.has(rec.method))
      calls.push(
        rec.args === undefined && rec.result === undefined ? rec : { ...rec, args: storable(rec.args), result: storable(rec.result) },
      );
  }
  return { rows: [...rollups.values()], calls };
}

/** Adds the batch's rollups to usage_daily: counters, durations and latency buckets sum on conflict. */
async function insertRollups(q: Queryable, rows: Rollup[]): Promise<void> {
  if (rows.length === 0) return;
  await q.query(
    `INSERT INTO registry.usage_daily AS u (tenant_id, day, server_id, tool, subject, calls, errors, tool_errors, rate_limited, bytes_in, bytes_out, duration_ms, latency)
     SELECT x.tenant, x.day::date, x.server, x.tool, x.subject, x.calls, x.errors, x.tool_errors, x.rate_limited, x.bytes_in, x.bytes_out, x.ms,
            ARRAY(SELECT jsonb_array_elements_text(x.latency)::bigint)
       FROM jsonb_to_recordset($1::jsonb) AS x(tenant text, day text, server text, tool text, subject text, calls bigint, errors bigint, tool_errors bigint,
            rate_limited bigint, bytes_in bigint, bytes_out bigint, ms double precision, latency jsonb)
     ON CONFLICT (tenant_id, day, server_id, tool, subject) DO UPDATE SET
       calls = u.calls + EXCLUDED.calls, errors = u.errors + EXCLUDED.errors, tool_errors = u.tool_errors + EXCLUDED.tool_errors,
       rate_limited = u.rate_limited + EXCLUDED.rate_limited, bytes_in = u.bytes_in + EXCLUDED.bytes_in, bytes_out = u.bytes_out + EXCLUDED.bytes_out,
       duration_ms = u.duration_ms + EXCLUDED.duration_ms,
       latency = ARRAY(SELECT a + b FROM unnest(u.latency, EXCLUDED.latency) AS l(a, b))`,
    [
      JSON.stringify(
        rows.map((u) => ({
          tenant: u.tenant,
          day: u.day,
          server: u.server,
          tool: u.tool,
          subject: u.subject,
          calls: u.calls,
          errors: u.errors,
          tool_errors: u.toolErrors,
          rate_limited: u.rateLimited,
          bytes_in: u.bytesIn,
          bytes_out: u.bytesOut,
          ms: u.ms,
          latency: u.latency,
        })),
      ),
    ],
  );
}

/** Appends the batch's logged calls to tool_calls. */
async function insertCalls(q: Queryable, calls: UsageRecord[]): Promise<void> {
  if (calls.length === 0) return;
  await q.query(
    `INSERT INTO registry.tool_calls (tenant_id, at, subject, client_id, surface, method, tool, server_id, outcome, error_code, duration_ms, bytes_in, bytes_out, arguments, result)
     SELECT x.tenant, to_timestamp(x.t / 1000.0), x.subject, x.client, x.surface, x.method, x.tool, x.server, x.outcome, x.code, x.ms, x."in", x.out, x.args, x.result
       FROM jsonb_to_recordset($1::jsonb) AS x(tenant text, t double precision, subject text, client text, surface text, method text, tool text, server text,
            outcome text, code integer, ms double precision, "in" integer, out integer, args jsonb, result jsonb)`,
    [JSON.stringify(calls)],
  );
}

interface BufferReads {
  xautoclaimBuffer(...args: Array<string | number>): Promise<unknown>;
  xreadgroupBuffer(...args: Array<string | number>): Promise<unknown>;
}

/** A stream entry as read in bytes: its id, then field, value, field, value… (an entry XAUTOCLAIM finds deleted comes with no fields). */
type Entry = [Buffer, Buffer[] | null];

/** The records of one stream entry: a compact batch (`b`, gateways since the batch format) or a JSON array of records (`r`, gateways before it, so a rolling upgrade loses nothing). */
function entryRecords(fields: Buffer[] | null): unknown[] {
  if (!fields) return [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i].toString('latin1');
    if (name === USAGE_BATCH_FIELD) return decodeUsageBatch(fields[i + 1]);
    if (name === USAGE_RECORDS_FIELD) {
      try {
        const parsed = JSON.parse(fields[i + 1].toString('utf8')) as unknown;
        return Array.isArray(parsed) ? parsed : [];
      } catch {
        return [];
      }
    }
  }
  return [];
}

const OUTCOMES: ReadonlySet<string> = new Set(['ok', 'error', 'tool_error', 'rate_limited']);
/** Largest epoch ms a JS Date (and so the rollup's day) can hold; Postgres' timestamp reaches further. */
const MAX_TIME_MS = 8.64e15;
const INT32_MAX = 2 ** 31 - 1;
/** Longest duration a record may claim (ms): far past any request timeout, small enough that a day's sum stays finite. */
const MAX_MS = 1e10;
const MAX_CAPTURED_BYTES = 16_384;
const str = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_FIELD && !v.includes('\u0000') && v.isWellFormed();
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
/** What fits the call log's `integer` columns. */
const int32 = (v: unknown, min: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= INT32_MAX;

/**
 * The stream is written by our gateways, but a record is checked before it reaches SQL: Postgres
 * refuses NUL and lone surrogates, string sizes are bounded, and every number must fit its column — one record that
 * does not (an upstream's JSON-RPC error code of 1e20, say) would otherwise fail its whole batch,
 * every tenant's records in it, on every retry.
 */
function valid(x: unknown): x is UsageRecord {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as Record<string, unknown>;
  return (
    num(r.t) &&
    r.t <= MAX_TIME_MS &&
    str(r.tenant) &&
    str(r.method) &&
    str(r.tool) &&
    str(r.server) &&
    str(r.subject) &&
    str(r.surface) &&
    typeof r.outcome === 'string' &&
    OUTCOMES.has(r.outcome) &&
    num(r.ms) &&
    r.ms <= MAX_MS &&
    int32(r.in, 0) &&
    int32(r.out, 0) &&
    (r.client === undefined || str(r.client)) &&
    (r.code === undefined || int32(r.code, -INT32_MAX - 1))
  );
}

/** A captured value as jsonb takes it (gateways redact and bound it already; this holds whatever the stream carries): no NUL, no lone surrogate, bounded. */
function storable(value: unknown): unknown {
  return value === undefined ? undefined : redactCaptured(value, [], MAX_CAPTURED_BYTES);
}

/** Calls refused by a rate limit in this batch, per tenant (the `limit.reached` webhook event). */
function rateLimitedByTenant(rows: ReadonlyArray<{ tenant: string; rateLimited: number }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) if (r.rateLimited > 0) out.set(r.tenant, (out.get(r.tenant) ?? 0) + r.rateLimited);
  return out;
}
