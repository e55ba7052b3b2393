/**
 * node-pg-migrate's well-known advisory lock id (its PG_MIGRATE_LOCK_ID). Every app migrating
 * one database with it (registry and auth) serialises on this one lock, so their migrations
 * never interleave, and replicas or an older release that still lets node-pg-migrate take the
 * lock itself exclude each other too.
 */
export const MIGRATION_LOCK_ID = '7241865325823964';

/** The default bound on the wait for the migration lock (MIGRATION_LOCK_TIMEOUT_MS): migrations of an empty database take seconds. */
export const DEFAULT_MIGRATION_LOCK_TIMEOUT_MS = 120_000;

/** One Postgres session (a pg Client or a client checked out of a Pool). */
export interface SqlSession {
  query(text: string): Promise<unknown>;
}

export interface MigrationLockOptions {
  /** Who is waiting, for the message (`registry`, `auth`). */
  service: string;
  /** Longest wait for the lock, in ms; the variable that sets it is named in the message. */
  timeoutMs: number;
  /** The configuration variable behind `timeoutMs`. */
  timeoutVariable: string;
}

/** The lock stayed taken for the whole bound: the message names the lock, the bound and how to find the holder. */
export class MigrationLockTimeoutError extends Error {
  override readonly name = 'MigrationLockTimeoutError';
}

/** SQLSTATE 55P03 lock_not_available: what `lock_timeout` raises. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Runs `migrate` holding the migration lock on `session`, waiting for it at most `timeoutMs`.
 * node-pg-migrate's own modes are `fail` (a replica booting beside another gives up at once)
 * or an unbounded `wait`; here Postgres' `lock_timeout` bounds the wait, and it is reset before
 * `migrate` runs so the migrations' own statements wait as they always did. Pass
 * `noLock: true` to node-pg-migrate inside `migrate`, on this same session.
 */
export async function withMigrationLock<T>(session: SqlSession, o: MigrationLockOptions, migrate: () => Promise<T>): Promise<T> {
  const timeoutMs = Math.max(1, Math.floor(o.timeoutMs));
  await session.query(`SET lock_timeout = ${timeoutMs}`);
  try {
    await session.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_ID})`);
  } catch (err) {
    if ((err as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw err;
    const key = BigInt(MIGRATION_LOCK_ID);
    throw new MigrationLockTimeoutError(
      `${o.service}: waited ${timeoutMs / 1000} s for the migration lock (Postgres advisory lock ${MIGRATION_LOCK_ID}) and another session still holds it: ` +
        `another replica or service is migrating this database, or a session is stuck holding the lock ` +
        `(SELECT pid, application_name, state, query_start FROM pg_locks JOIN pg_stat_activity USING (pid) WHERE locktype = 'advisory' AND classid = ${key >> 32n} AND objid = ${key & 0xffffffffn}). ` +
        `Raise ${o.timeoutVariable} when migrations legitimately take longer.`,
      { cause: err },
    );
  } finally {
    await session.query('RESET lock_timeout');
  }
  try {
    return await migrate();
  } finally {
    // A failed unlock leaves the lock to the session's end (the caller closes or releases it).
    await session.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_ID})`).catch(() => undefined);
  }
}
