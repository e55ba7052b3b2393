import path from 'node:path';
import type { Logger } from 'pino';

/** The versioned SQL migrations (same folder for `src` under jest and `dist` at runtime). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/**
 * Runs every pending migration of schema `registry` with node-pg-migrate (an advisory lock
 * makes concurrent replicas wait for each other). node-pg-migrate is ESM-only: it is loaded
 * with a real `import()`, which Node 24 allows from CommonJS.
 */
export async function migrate(databaseUrl: string, logger: Logger): Promise<void> {
  const { runner } = await import('node-pg-migrate');
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    schema: 'registry',
    createSchema: true,
    createMigrationsSchema: true,
    checkOrder: true,
    log: (msg: string) => logger.debug({ migration: msg }, 'migration'),
    noLock: false,
  });
  if (applied.length > 0) logger.info({ applied: applied.map((m) => m.name) }, 'registry migrations applied');
}
