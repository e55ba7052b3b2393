import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { cleanRedis, createDatabase, REPO_ROOT, spawnApp, startRegistry, testEnv, until, type Proc } from './support/harness';

/** The migration files each app ships, in the order node-pg-migrate applies them (by name). */
const migrationNames = (app: 'registry' | 'auth') =>
  readdirSync(path.join(REPO_ROOT, 'apps', app, 'migrations'))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.replace(/\.sql$/, ''))
    .sort();

/** node-pg-migrate's lock id, shared by every app migrating with it (registry and auth on one database). */
const PG_MIGRATE_LOCK_ID = '7241865325823964';

function startAuth(databaseUrl: string, extra: Record<string, string> = {}): Promise<Proc> {
  return spawnApp(
    'auth',
    'apps/auth/dist/main.js',
    {
      AUTH_PORT: '0',
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      TENANTS_FILE: '/nonexistent/tenants.yaml',
      LOG_LEVEL: 'warn',
      ...extra,
    },
    /auth listening on (http:\/\/\S+)/,
    60_000,
  );
}

async function ready(url: string): Promise<number> {
  const res = await fetch(`${url}/readyz`).catch(() => undefined);
  return res?.status ?? 0;
}

/**
 * Issue 50 point 2: registry and auth migrate one database under node-pg-migrate's advisory
 * lock (one lock id for both). A replica that finds the lock taken must wait for it, bounded,
 * never give up at once: two registries and an auth booted together on an empty database all
 * come up and the schema is migrated exactly once.
 */
describe('migrations of registry and auth booting together on one empty database', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  const procs: Proc[] = [];

  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await cleanRedis(env);
    await db?.drop();
    db = undefined;
  });

  it('brings up two registries and one auth, each migration applied once', async () => {
    db = await createDatabase();
    const started = await Promise.allSettled([startRegistry(env, db.url), startRegistry(env, db.url), startAuth(db.url)]);
    for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
    // Every failure's output, not only the first: a lost race names the lock in it.
    expect(started.map((s) => (s.status === 'fulfilled' ? 'up' : String(s.reason).slice(0, 2_000)))).toEqual(['up', 'up', 'up']);
    for (const p of procs) expect(await until(`${p.url}/readyz`, async () => ((await ready(p.url)) === 200 ? 200 : undefined))).toBe(200);

    const pg = new PgClient(db.url);
    await pg.connect();
    try {
      for (const app of ['registry', 'auth'] as const) {
        const { rows } = await pg.query<{ name: string }>(`SELECT name FROM ${app}.pgmigrations ORDER BY run_on, id`);
        expect({ app, applied: rows.map((r) => r.name) }).toEqual({ app, applied: migrationNames(app) });
      }
      // The tables the last migrations create exist (the schema is whole, not only the bookkeeping).
      const { rows } = await pg.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema IN ('registry', 'auth')`,
      );
      expect(rows[0]!.n).toBeGreaterThan(10);
    } finally {
      await pg.end();
    }
  }, 120_000);

  it('gives up after MIGRATION_LOCK_TIMEOUT_MS when the lock stays taken, naming the lock and the variable', async () => {
    db = await createDatabase();
    const holder = new PgClient(db.url);
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${PG_MIGRATE_LOCK_ID})`);
      const t0 = Date.now();
      const failed = await startRegistry(env, db.url, { MIGRATION_LOCK_TIMEOUT_MS: '1500' }).then(
        (p) => {
          procs.push(p);
          return 'started';
        },
        (err: Error) => err.message,
      );
      expect(failed).toMatch(/registry exited with 1/);
      expect(failed).toMatch(/waited 1\.5 s for the migration lock \(Postgres advisory lock 7241865325823964\)/);
      expect(failed).toMatch(/MIGRATION_LOCK_TIMEOUT_MS/);
      // It waited (not the instant refusal of advisoryLockMode 'fail') and then gave up.
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_500);
    } finally {
      await holder.end();
    }
  }, 60_000);
});
