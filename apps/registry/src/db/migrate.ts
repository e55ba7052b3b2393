import path from 'node:path';
import { DEFAULT_MIGRATION_LOCK_TIMEOUT_MS, withMigrationLock } from '@switchboard/mcp-http';
import { Client } from 'pg';
import type { Logger } from 'pino';

/** The versioned SQL migrations (same folder for `src` under jest and `dist` at runtime). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/**
 * Runs every pending migration of schema `registry` with node-pg-migrate under the migration
 * lock, which auth's migrations and the other replicas take too: a replica that finds it taken
 * waits up to `lockTimeoutMs` (MIGRATION_LOCK_TIMEOUT_MS), then fails naming the lock.
 * node-pg-migrate is ESM-only: it is loaded with a real `import()`, which Node 24 allows from CommonJS.
 */
export async function migrate(databaseUrl: string, logger: Logger, lockTimeoutMs = DEFAULT_MIGRATION_LOCK_TIMEOUT_MS): Promise<void> {
  const { runner } = await import('node-pg-migrate');
  const client = new Client({ connectionString: databaseUrl, application_name: 'registry-migrate' });
  await client.connect();
  try {
    const applied = await withMigrationLock(
      client,
      { service: 'registry', timeoutMs: lockTimeoutMs, timeoutVariable: 'MIGRATION_LOCK_TIMEOUT_MS' },
      () =>
        runner({
          dbClient: client,
          dir: MIGRATIONS_DIR,
          direction: 'up',
          migrationsTable: 'pgmigrations',
          schema: 'registry',
          createSchema: true,
          createMigrationsSchema: true,
          checkOrder: true,
          log: (msg: string) => logger.debug({ migration: msg }, 'migration'),
          // withMigrationLock holds the lock on this session.
          noLock: true,
        }),
    );
    if (applied.length > 0) logger.info({ applied: applied.map((m) => m.name) }, 'registry migrations applied');
  } finally {
    await client.end();
  }
}
