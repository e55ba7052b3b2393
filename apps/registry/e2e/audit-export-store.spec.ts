// The audit exporter's SQL on a real Postgres: the cursor order never skips an entry whose
// transaction commits after a later id's, the cursor only moves forward, and one exporter at a
// time holds a tenant. Migrations run through the built reseal job (node-pg-migrate is ESM-only),
// so run `npx tsc -b tsconfig.build.json` first.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import pino from 'pino';
import { AuditExportStore, type AuditExportRow } from '../src/audit-export/audit-export-store';
import { Database } from '../src/db/database';
import { createDatabase, REPO_ROOT, until } from './support/harness';

describe('audit export store', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let db: Database;
  let store: AuditExportStore;
  const entry = (action: string, o: { tenant?: string; q?: { query: (sql: string, params: unknown[]) => Promise<unknown> } } = {}) =>
    (o.q ?? db).query("INSERT INTO registry.audit_log (tenant_id, actor, action, target) VALUES ($1, 'test', $2, NULL)", [
      o.tenant ?? 'acme',
      action,
    ]);

  beforeAll(async () => {
    database = await createDatabase();
    const job = spawnSync(process.execPath, [path.join(REPO_ROOT, 'apps/registry/dist/reseal.js')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'silent',
        DATABASE_URL: database.url,
        SECRETS_KEY: randomBytes(32).toString('base64'),
      },
    });
    expect(job.status).toBe(0);
    db = new Database(database.url, pino({ level: 'silent' }));
    store = new AuditExportStore(db);
    await db.query("INSERT INTO registry.tenants (id, name) VALUES ('acme', 'Acme'), ('beta', 'Beta')");
    await db.query(
      "INSERT INTO registry.audit_exports (tenant_id, endpoint, bucket, region, access_key_id, secret_sealed) VALUES ('acme', 'https://s3.example.com', 'b', 'us-east-1', 'k', 'sealed')",
    );
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('reads nothing past a transaction still open, then its entry first, although its id is smaller', async () => {
    const late = new PgClient(database.url);
    await late.connect();
    try {
      await late.query('BEGIN');
      await entry('late', { q: late });
      await entry('committed-first');
      await entry('other-tenant', { tenant: 'beta' });
      // An id cursor would export "committed-first" now and move past the open transaction's smaller id for good.
      expect(await store.readBatch('acme', '0', '0', 10)).toEqual([]);
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    const batch = await until('both entries readable', async () => {
      const rows = await store.readBatch('acme', '0', '0', 10);
      return rows.length === 2 ? rows : undefined;
    });
    expect(batch.map((e) => e.action)).toEqual(['late', 'committed-first']);
    expect(Number(batch[0]!.id)).toBeLessThan(Number(batch[1]!.id));
    // After the first, only the second; after both, nothing.
    expect((await store.readBatch('acme', batch[0]!.txid, batch[0]!.id, 10)).map((e) => e.action)).toEqual(['committed-first']);
    expect(await store.readBatch('acme', batch[1]!.txid, batch[1]!.id, 10)).toEqual([]);

    expect(await store.advance('acme', batch[1]!, 2)).toBe(true);
    // A stale exporter that read only the first cannot move the cursor back.
    expect(await store.advance('acme', batch[0]!, 1)).toBe(false);
    const [row] = await db.query<{ cursor_id: string; exported: string }>(
      "SELECT cursor_id, exported FROM registry.audit_exports WHERE tenant_id = 'acme'",
    );
    expect(row).toEqual({ cursor_id: batch[1]!.id, exported: '2' });
  });

  it('lets one exporter at a time hold a tenant', async () => {
    let inner: unknown = 'not run';
    const outer = await store.withTenantLock('acme', async (row) => {
      inner = await store.withTenantLock('acme', async () => 'second holder');
      return row.tenant_id;
    });
    expect(outer).toBe('acme');
    expect(inner).toBeUndefined();
    // Released afterwards; a tenant without an export gives nothing to run.
    expect(await store.withTenantLock('acme', async () => 'again')).toBe('again');
    expect(await store.withTenantLock('beta', async () => 'no export')).toBeUndefined();
  });
  it('records a failure only against the settings the attempt was made with', async () => {
    const [row] = await db.query<AuditExportRow>("SELECT * FROM registry.audit_exports WHERE tenant_id = 'acme'");
    // The tenant saves a new sink while an attempt against the old one is still running.
    await db.query("UPDATE registry.audit_exports SET settings_version = settings_version + 1 WHERE tenant_id = 'acme'");
    await store.fail(row!, 'old sink refused', 1_000, 60_000);
    const state = () =>
      db.query<{ status: string; last_error: string | null; failures: number }>(
        "SELECT status, last_error, failures FROM registry.audit_exports WHERE tenant_id = 'acme'",
      );
    expect(await state()).toEqual([{ status: 'ok', last_error: null, failures: 0 }]);
    await store.fail({ ...row!, settings_version: row!.settings_version + 1 }, 'new sink refused', 1_000, 60_000);
    expect(await state()).toEqual([{ status: 'error', last_error: 'new sink refused', failures: 1 }]);
  });
});
