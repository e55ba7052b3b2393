import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import type { Logger } from 'pino';
import { DatabaseUnavailableError } from '../http/api-error';

/** Error codes meaning "the database is not there", as opposed to a bad statement. */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '3D000',
  '55000',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '3F000',
  '42P01',
]);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/** Something that runs parameterised SQL (the pool, or a transaction's client). */
export interface Queryable {
  query<R extends QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
}

/**
 * The registry's Postgres access: a pool with short connect timeouts, and errors that mean
 * "Postgres is down" turned into DatabaseUnavailableError (→ 503 + Retry-After).
 */
export class Database implements Queryable {
  readonly pool: Pool;

  constructor(
    readonly url: string,
    private readonly logger: Logger,
  ) {
    this.pool = new Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: 2_000,
      idleTimeoutMillis: 10_000,
      query_timeout: 10_000,
    });
    // An idle client losing its server must not crash the process.
    this.pool.on('error', (err) => this.logger.warn({ err: err.message }, 'idle Postgres client error'));
  }

  async query<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (err) {
      throw translate(err);
    }
  }

  /** Runs `fn` in one transaction (rolled back when it throws). */
  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw translate(err);
    }
    const q: Queryable = {
      query: async <R extends QueryResultRow>(sql: string, params: unknown[] = []) => {
        try {
          return (await client.query<R>(sql, params)).rows;
        } catch (err) {
          throw translate(err);
        }
      },
    };
    let broken = false;
    try {
      await q.query('BEGIN');
      const out = await fn(q);
      await q.query('COMMIT');
      return out;
    } catch (err) {
      broken = err instanceof DatabaseUnavailableError;
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

/** Connection-level failures become DatabaseUnavailableError; statement errors pass through. */
export function translate(err: unknown): unknown {
  const e = err as { code?: string; message?: string };
  const msg = e?.message ?? '';
  if (
    (e?.code && (UNAVAILABLE_SQLSTATES.has(e.code) || UNAVAILABLE_ERRNOS.has(e.code))) ||
    /timeout exceeded when trying to connect|Connection terminated|connection timeout/i.test(msg)
  ) {
    return new DatabaseUnavailableError(`Postgres unavailable: ${e?.code ?? msg}`, { cause: err });
  }
  return err;
}

/** True for a unique-constraint violation (23505), optionally of a named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
