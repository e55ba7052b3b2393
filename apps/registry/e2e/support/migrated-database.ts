// A fresh registry database with every migration applied (through the built reseal job:
// node-pg-migrate is ESM-only, so run `npx tsc -b tsconfig.build.json` first), and bulk seeding
// of published tenants in plain SQL (100k rows in a few seconds, no API round trips).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pino from 'pino';
import { Database } from '../../src/db/database';
import { createDatabase, REPO_ROOT } from './harness';

export interface MigratedDatabase {
  url: string;
  db: Database;
  drop(): Promise<void>;
}

export async function migratedDatabase(): Promise<MigratedDatabase> {
  const database = await createDatabase();
  const job = spawnSync(process.execPath, [path.join(REPO_ROOT, 'apps/registry/dist/reseal.js')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATABASE_URL: database.url, SECRETS_KEY: randomBytes(32).toString('base64') },
  });
  if (job.status !== 0) throw new Error(`migrations failed: ${job.stderr}`);
  const db = new Database(database.url, pino({ level: 'silent' }));
  return {
    url: database.url,
    db,
    drop: async () => {
      await db.close();
      await database.drop();
    },
  };
}

/**
 * Inserts tenants `<prefix>-<n>` for n in [from, to], each published at version `v1-<id>` with
 * an empty snapshot (what the Publisher needs to build its Redis document).
 */
export async function seedPublishedTenants(db: Database, prefix: string, from: number, to: number): Promise<void> {
  await db.query(
    `INSERT INTO registry.tenants (id, name, current_version)
     SELECT $1 || '-' || lpad(n::text, 6, '0'), 'T' || n, 'v1-' || $1 || '-' || lpad(n::text, 6, '0') FROM generate_series($2::int, $3::int) n`,
    [prefix, from, to],
  );
  await db.query(
    `INSERT INTO registry.snapshots (tenant_id, version, snapshot)
     SELECT t.id, t.current_version, jsonb_build_object('tenantId', t.id, 'version', t.current_version,
            'server', jsonb_build_object('name', t.id, 'version', '1'), 'tools', '[]'::jsonb, 'resources', '[]'::jsonb,
            'resourceTemplates', '[]'::jsonb, 'prompts', '[]'::jsonb)
       FROM registry.tenants t WHERE t.id LIKE $1 || '-%' AND t.current_version IS NOT NULL
     ON CONFLICT DO NOTHING`,
    [prefix],
  );
}
