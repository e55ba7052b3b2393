// The registry's hot queries at 100,000 tenants use index scans: the catalog version feed, the
// verification's rolling window and orphan check, the catalog a gateway loads, and a tenant's
// usage and call log (on the time-partitioned tables). Rows are seeded with bulk SQL in an
// isolated database; plans come from EXPLAIN ANALYZE after ANALYZE. EXPLAIN_PRINT=1 prints them.
import type { Database } from '../src/db/database';
import { readFeedSql } from '../src/model/catalog-feed';
import { migratedDatabase, seedPublishedTenants, type MigratedDatabase } from './support/migrated-database';

jest.setTimeout(120_000);

const TENANTS = 100_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

function nodes(p: PlanNode): PlanNode[] {
  return [p, ...(p.Plans ?? []).flatMap(nodes)];
}

/** Runs EXPLAIN ANALYZE; returns the scans (node type + relation/index) and the execution time. */
async function explain(db: Database, sql: string, params: unknown[]): Promise<{ scans: string[]; ms: number }> {
  const [row] = await db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
    params,
  );
  const { Plan, 'Execution Time': ms } = row['QUERY PLAN'][0];
  const scans = nodes(Plan)
    .filter((n) => n['Node Type'].endsWith('Scan'))
    .map((n) => `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name'] ?? ''}`.trim());
  if (process.env.EXPLAIN_PRINT) process.stdout.write(`${ms.toFixed(2)} ms  ${scans.join(', ')}\n  ${sql.replace(/\s+/g, ' ')}\n`);
  return { scans, ms };
}

describe(`registry hot queries at ${TENANTS.toLocaleString('en')} tenants`, () => {
  let m: MigratedDatabase;
  /** Tables with no rows (partitions ahead, the defaults): a sequential scan of those reads nothing. */
  const empty = new Set<string>();

  beforeAll(async () => {
    m = await migratedDatabase();
    await seedPublishedTenants(m.db, 'ten', 1, TENANTS);
    // Later publishes, each in its own transaction, so the feed has a tail past the seeding's tie.
    for (let n = 1; n <= 50; n++)
      await m.db.query("UPDATE registry.tenants SET current_version = 'v2' WHERE id = $1", [`ten-${String(n * 997).padStart(6, '0')}`]);
    // A day of calls and four weeks of rollups for 1,000 tenants (30 each), and 2,000 removed tenants.
    await m.db.query(
      `INSERT INTO registry.tool_calls (tenant_id, at, subject, surface, method, tool, server_id, outcome, duration_ms, bytes_in, bytes_out)
       SELECT 'ten-' || lpad((1 + n % 1000)::text, 6, '0'), now() - (n % 86400) * interval '1 second', 'user-' || n % 50, 'mcp', 'tools/call',
              'tool-' || n % 20, 'main', 'ok', 12.5, 200, 900 FROM generate_series(1, 30000) n`,
    );
    await m.db.query(
      `INSERT INTO registry.usage_daily (tenant_id, day, server_id, tool, subject, calls, latency)
       SELECT 'ten-' || lpad((1 + n % 1000)::text, 6, '0'), current_date - (n / 1000) % 28, 'main', 'tool-' || n % 20, 'user-' || n,
              10, '{1,2,3,4,5,6,7,8,9,10,11,12}' FROM generate_series(1, 30000) n ON CONFLICT DO NOTHING`,
    );
    await m.db.query("INSERT INTO registry.catalog_removals (tenant_id) SELECT 'gone-' || n FROM generate_series(1, 2000) n");
    await m.db.query('ANALYZE');
    const rows = await m.db.query<{ relname: string }>(
      "SELECT relname FROM pg_class WHERE relnamespace = 'registry'::regnamespace AND relkind = 'r' AND reltuples < 1",
    );
    for (const r of rows) empty.add(r.relname);
  });

  afterAll(async () => {
    await m?.drop();
  });

  const noSeqScan = (scans: string[]) => {
    expect(scans.filter((s) => s.startsWith('Seq Scan') && !empty.has(s.slice('Seq Scan '.length)))).toEqual([]);
    expect(scans.some((s) => s.includes('Index Scan'))).toBe(true);
  };

  it('reads a page of the catalog version feed from a cursor by index', async () => {
    const [{ txid }] = await m.db.query<{ txid: string }>('SELECT min(version_txid)::text AS txid FROM registry.tenants');
    const { scans } = await explain(m.db, readFeedSql, [txid, 'ten-050000', 1000]);
    noSeqScan(scans);
  });

  it("walks the verification's window and checks listed members by index", async () => {
    noSeqScan(
      (
        await explain(
          m.db,
          'SELECT id, current_version FROM registry.tenants WHERE id > $1 AND current_version IS NOT NULL ORDER BY id LIMIT $2',
          ['ten-070000', 2000],
        )
      ).scans,
    );
    const members = Array.from({ length: 2000 }, (_, i) => `ten-${String(1 + i * 37).padStart(6, '0')}`);
    noSeqScan((await explain(m.db, 'SELECT id FROM registry.tenants WHERE id = ANY($1) AND current_version IS NOT NULL', [members])).scans);
  });

  it('loads one catalog (tenant row, snapshot) by primary key', async () => {
    noSeqScan((await explain(m.db, 'SELECT * FROM registry.tenants WHERE id = $1', ['ten-099999'])).scans);
    noSeqScan(
      (
        await explain(m.db, 'SELECT snapshot FROM registry.snapshots WHERE tenant_id = $1 AND version = $2', [
          'ten-099999',
          'v1-ten-099999',
        ])
      ).scans,
    );
  });

  it("reads a tenant's call log page and usage range by index on the partitioned tables", async () => {
    noSeqScan(
      (
        await explain(
          m.db,
          'SELECT id, at, tool, outcome FROM registry.tool_calls WHERE tenant_id = $1 AND at >= $2::timestamptz ORDER BY id DESC LIMIT 51',
          ['ten-000500', new Date(Date.now() - 86_400_000).toISOString()],
        )
      ).scans,
    );
    noSeqScan(
      (
        await explain(
          m.db,
          'SELECT tool, sum(calls) FROM registry.usage_daily WHERE tenant_id = $1 AND day >= $2::date AND day <= $3::date GROUP BY tool',
          ['ten-000500', new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10), new Date().toISOString().slice(0, 10)],
        )
      ).scans,
    );
  });
});
