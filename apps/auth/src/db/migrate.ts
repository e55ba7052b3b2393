import path from 'node:path';
import { DEFAULT_MIGRATION_LOCK_TIMEOUT_MS, withMigrationLock } from '@switchboard/mcp-http';
import type { Pool } from 'pg';
import { pgMigrate } from '../oidc/native-modules';

/** The migrations folder sits beside src/ and dist/, so the path works from both. */
const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/**
 * Runs pending migrations of schema `schema` (created if missing) under the migration lock the
 * registry's migrations and other replicas take too: waits up to `lockTimeoutMs`
 * (MIGRATION_LOCK_TIMEOUT_MS) for it, then fails naming the lock.
 */
export async function migrateAuthSchema(pool: Pool, schema: string, lockTimeoutMs = DEFAULT_MIGRATION_LOCK_TIMEOUT_MS): Promise<void> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await withMigrationLock(client, { service: 'auth', timeoutMs: lockTimeoutMs, timeoutVariable: 'MIGRATION_LOCK_TIMEOUT_MS' }, () =>
      pgMigrate.runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        direction: 'up',
        schema,
        createSchema: true,
        migrationsTable: 'pgmigrations',
        migrationLoaderStrategies: [{ extensions: ['.sql'], loader: 'sql' }],
        // withMigrationLock holds the lock on this session.
        noLock: true,
        log: () => undefined,
      }),
    );
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    // After a failure the session may still hold the lock or a half-open transaction: drop it rather than pool it.
    client.release(failure);
  }
}
