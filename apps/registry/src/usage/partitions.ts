import type { Queryable } from '../db/database';

/** How far ahead partitions exist, and how long each table keeps them (days). */
export interface PartitionPolicy {
  /** Daily call-log partitions created ahead of today (inserts never wait for the job). */
  callDaysAhead: number;
  /** Monthly rollup partitions created ahead of this month. */
  usageMonthsAhead: number;
  /** A call-log day is dropped once it is older than this (the longest retention any tenant may have). */
  callRetentionDays: number;
  /** A rollup month is dropped once its last day is older than this. */
  usageRetentionDays: number;
}

export interface PartitionChanges {
  created: string[];
  dropped: string[];
}

const DAY_MS = 86_400_000;
const CALLS = /^tool_calls_p(\d{4})(\d{2})(\d{2})$/;
const USAGE = /^usage_daily_p(\d{4})(\d{2})$/;

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const utcDay = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS);
const firstOfMonth = (d: Date, add = 0) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1));

/**
 * The partition maintenance of `tool_calls` (one partition per UTC day) and `usage_daily` (one
 * per month): creates those for today / this month and the policy's lead, and drops those whose
 * whole range is past retention. Rows are never deleted one by one here (tenants with a shorter
 * call-log retention are still trimmed by the drainer's DELETE). Idempotent; replicas may run it
 * concurrently (registry.create_time_partition serialises on an advisory lock).
 */
export async function maintainPartitions(q: Queryable, policy: PartitionPolicy, now = Date.now()): Promise<PartitionChanges> {
  const created: string[] = [];
  const today = utcDay(now);
  for (let i = 0; i <= policy.callDaysAhead; i++) {
    const lo = new Date(today.getTime() + i * DAY_MS);
    const hi = new Date(lo.getTime() + DAY_MS);
    const name = `tool_calls_p${ymd(lo).replaceAll('-', '')}`;
    if (await createPartition(q, 'tool_calls', name, 'at', `${ymd(lo)} 00:00:00+00`, `${ymd(hi)} 00:00:00+00`)) created.push(name);
  }
  for (let i = 0; i <= policy.usageMonthsAhead; i++) {
    const lo = firstOfMonth(today, i);
    const name = `usage_daily_p${ymd(lo).slice(0, 7).replace('-', '')}`;
    if (await createPartition(q, 'usage_daily', name, 'day', ymd(lo), ymd(firstOfMonth(lo, 1)))) created.push(name);
  }
  const dropped: string[] = [];
  const callHorizon = today.getTime() - policy.callRetentionDays * DAY_MS;
  const usageHorizon = today.getTime() - policy.usageRetentionDays * DAY_MS;
  for (const name of await partitionNames(q)) {
    const c = CALLS.exec(name);
    const u = USAGE.exec(name);
    // The end of the partition's range: every row in it is older than that.
    const end = c ? Date.UTC(+c[1], +c[2] - 1, +c[3] + 1) : u ? Date.UTC(+u[1], +u[2], 1) : Number.POSITIVE_INFINITY;
    const horizon = c ? callHorizon : usageHorizon;
    if (end > horizon) continue;
    await q.query(`DROP TABLE IF EXISTS registry.${quoteIdent(name)}`);
    dropped.push(name);
  }
  return { created, dropped };
}

/** The time partitions of both tables (their names encode their ranges). */
export async function partitionNames(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent IN ('registry.tool_calls'::regclass, 'registry.usage_daily'::regclass) ORDER BY 1`,
  );
  return rows.map((r) => r.name).filter((n) => CALLS.test(n) || USAGE.test(n));
}

async function createPartition(q: Queryable, parent: string, name: string, col: string, lo: string, hi: string): Promise<boolean> {
  const rows = await q.query<{ created: boolean }>('SELECT registry.create_time_partition($1, $2, $3, $4, $5) AS created', [
    parent,
    name,
    col,
    lo,
    hi,
  ]);
  return rows[0]?.created === true;
}

/** Partition names come from CALLS / USAGE only; quoting is belt and braces. */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
