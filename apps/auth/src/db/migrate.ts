import path from 'node:path';
import type { Pool } from 'pg';
import { pgMigrate } from '../oidc/native-modules';

/** The migrations folder sits beside src/ and dist/, so the path works from both. */
const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/** Runs pending migrations of schema `schema` (created if missing) under node-pg-migrate's advisory lock. */
export async function migrateAuthSchema(pool: Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await pgMigrate.runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      direction: 'up',
      schema,
      createSchema: true,
      migrationsTable: 'pgmigrations',
      migrationLoaderStrategies: [{ extensions: ['.sql'], loader: 'sql' }],
      advisoryLockMode: 'wait',
      log: () => undefined,
    });
  } finally {
    client.release();
  }
}
