// Time partitions of the call log (daily) and usage rollups (monthly) on a real Postgres: rows
// land in their period's partition, the maintenance creates partitions ahead (moving rows that
// fell into the default partition), and drops those past retention — the longest any tenant keeps.
import { Redis } from 'ioredis';
import pino from 'pino';
import { maintainPartitions, partitionNames } from '../src/usage/partitions';
import { UsageDrainer } from '../src/usage/usage-drainer';
import { REDIS_URL } from './support/harness';
import { migratedDatabase, type MigratedDatabase } from './support/migrated-database';

jest.setTimeout(60_000);

const DAY = 86_400_000;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayName = (ms: number) => `tool_calls_p${ymd(ms).replaceAll('-', '')}`;
const monthName = (ms: number) => `usage_daily_p${ymd(ms).slice(0, 7).replace('-', '')}`;
const POLICY = { callDaysAhead: 7, usageMonthsAhead: 2, callRetentionDays: 30, usageRetentionDays: 400 };

describe('usage and call-log partitions', () => {
  let m: MigratedDatabase;
  const now = Date.now();

  const insertCall = (at: number, tenant = 'acme') =>
    m.db.query(
      `INSERT INTO registry.tool_calls (tenant_id, at, subject, surface, method, tool, server_id, outcome, duration_ms, bytes_in, bytes_out)
       VALUES ($1, $2, 'alice', 'mcp', 'tools/call', 'search', 'main', 'ok', 1, 1, 1) RETURNING id`,
      [tenant, new Date(at).toISOString()],
    );
  const partitionOf = async (id: string) =>
    (await m.db.query<{ p: string }>('SELECT tableoid::regclass::text AS p FROM registry.tool_calls WHERE id = $1', [id]))[0]?.p;

  beforeAll(async () => {
    m = await migratedDatabase();
    await m.db.query("INSERT INTO registry.tenants (id, name) VALUES ('acme', 'Acme'), ('long', 'Long')");
  });

  afterAll(async () => {
    await m?.drop();
  });

  it('has partitions from today to a week ahead after migrating, and puts each row in its day', async () => {
    const names = await partitionNames(m.db);
    for (let i = 0; i <= 7; i++) expect(names).toContain(dayName(now + i * DAY));
    expect(names).toContain(monthName(now));
    const [row] = await insertCall(now + 2 * DAY);
    expect(await partitionOf(row.id)).toBe(`registry.${dayName(now + 2 * DAY)}`);
    await m.db.query(
      "INSERT INTO registry.usage_daily (tenant_id, day, server_id, tool, subject, latency) VALUES ('acme', $1::date, 'main', 'search', 'alice', '{1}')",
      [ymd(now)],
    );
    const [u] = await m.db.query<{ p: string }>("SELECT tableoid::regclass::text AS p FROM registry.usage_daily WHERE tenant_id = 'acme'");
    expect(u.p).toBe(`registry.${monthName(now)}`);
  });

  it('creates partitions ahead as days pass, moving rows that landed in the default partition', async () => {
    const [early] = await insertCall(now + 12 * DAY);
    expect(await partitionOf(early.id)).toBe('registry.tool_calls_default');
    const later = now + 6 * DAY;
    const changes = await maintainPartitions(m.db, POLICY, later);
    expect(changes.created).toEqual(expect.arrayContaining([dayName(now + 8 * DAY), dayName(now + 12 * DAY), dayName(now + 13 * DAY)]));
    expect(await partitionOf(early.id)).toBe(`registry.${dayName(now + 12 * DAY)}`);
    // Idempotent: a second run (or another replica) creates nothing.
    expect((await maintainPartitions(m.db, POLICY, later)).created).toEqual([]);
  });

  it('drops call partitions past retention and rollup months past the usage retention', async () => {
    const old = now - 40 * DAY;
    await m.db.query('SELECT registry.create_time_partition($1, $2, $3, $4, $5)', [
      'tool_calls',
      dayName(old),
      'at',
      `${ymd(old)} 00:00:00+00`,
      `${ymd(old + DAY)} 00:00:00+00`,
    ]);
    const [row] = await insertCall(old);
    expect(await partitionOf(row.id)).toBe(`registry.${dayName(old)}`);
    const oldMonth = Date.UTC(new Date(now).getUTCFullYear() - 2, 0, 1);
    await m.db.query('SELECT registry.create_time_partition($1, $2, $3, $4, $5)', [
      'usage_daily',
      monthName(oldMonth),
      'day',
      ymd(oldMonth),
      ymd(Date.UTC(new Date(oldMonth).getUTCFullYear(), 1, 1)),
    ]);
    const changes = await maintainPartitions(m.db, POLICY, now);
    expect(changes.dropped).toEqual(expect.arrayContaining([dayName(old), monthName(oldMonth)]));
    expect(await partitionNames(m.db)).not.toContain(dayName(old));
    expect(await m.db.query('SELECT 1 FROM registry.tool_calls WHERE id = $1', [row.id])).toEqual([]);
    // Recent partitions stay.
    expect(await partitionNames(m.db)).toContain(dayName(now));
  });

  it("keeps a day as long as the longest tenant's call-log retention (the drainer's maintenance job)", async () => {
    const old = now - 60 * DAY;
    await m.db.query('SELECT registry.create_time_partition($1, $2, $3, $4, $5)', [
      'tool_calls',
      dayName(old),
      'at',
      `${ymd(old)} 00:00:00+00`,
      `${ymd(old + DAY)} 00:00:00+00`,
    ]);
    await insertCall(old, 'long');
    await insertCall(old, 'acme');
    await m.db.query(`UPDATE registry.tenants SET call_log = '{"retentionDays": 90}' WHERE id = 'long'`);
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    const drainer = new UsageDrainer(m.db, {
      redis,
      namespace: 'unused:',
      consumer: 'test',
      count: 10,
      claimIdleMs: 1000,
      callRetentionDays: 30,
      usageRetentionDays: 400,
      logger: pino({ level: 'silent' }),
    });
    try {
      const changes = await drainer.applyRetention();
      expect(changes.dropped).not.toContain(dayName(old));
      // Within the kept partition, the tenant with the default 30 days lost its row; the other kept its own.
      const rows = await m.db.query<{ tenant_id: string }>(
        "SELECT tenant_id FROM registry.tool_calls WHERE at < now() - interval '50 days'",
      );
      expect(rows.map((r) => r.tenant_id)).toEqual(['long']);
      await m.db.query(`UPDATE registry.tenants SET call_log = '{}' WHERE id = 'long'`);
      expect((await drainer.applyRetention()).dropped).toContain(dayName(old));
    } finally {
      redis.disconnect();
    }
  });
});
