import type { PoolClient } from 'pg';
import { translate, type Database } from '../db/database';
import type { AuditEntry } from './audit-objects';

/** A tenant's export settings and cursor as stored (`registry.audit_exports`). */
export interface AuditExportRow {
  tenant_id: string;
  enabled: boolean;
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  path_style: boolean;
  access_key_id: string;
  secret_sealed: string;
  cursor_txid: string;
  cursor_id: string;
  exported: string;
  status: 'pending' | 'ok' | 'error';
  last_error: string | null;
  last_error_at: Date | null;
  last_export_at: Date | null;
  failures: number;
  next_attempt_at: Date;
  settings_version: number;
  updated_at: Date;
}

/** Longest error text kept for the API (S3 messages and socket errors are short; bodies are never stored). */
const MAX_ERROR_TEXT = 500;

/** First key of the exporter's per-tenant advisory locks (the second is the tenant id's hash). */
const LOCK_SPACE = 480_005;

/**
 * The SQL of the audit exporter: a per-tenant advisory lock (one exporter per tenant at a time;
 * a crashed holder's connection drops and frees it at once), batches in cursor order, and a
 * cursor advanced only after the batch's objects were written, and only forward.
 */
export class AuditExportStore {
  constructor(private readonly db: Database) {}

  /** Enabled exports whose next attempt is due, oldest first. */
  due(limit: number): Promise<AuditExportRow[]> {
    return this.db.query<AuditExportRow>(
      'SELECT * FROM registry.audit_exports WHERE enabled AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1',
      [limit],
    );
  }

  /**
   * Runs `fn` with the tenant's export row while holding its advisory lock on a dedicated
   * session; undefined when another exporter holds it, or the export was removed or disabled.
   */
  async withTenantLock<T>(tenantId: string, fn: (row: AuditExportRow) => Promise<T>): Promise<T | undefined> {
    let session: PoolClient;
    try {
      session = await this.db.pool.connect();
    } catch (err) {
      throw translate(err);
    }
    let broken = false;
    try {
      const [lock] = (
        await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [LOCK_SPACE, tenantId])
      ).rows;
      if (!lock?.locked) return undefined;
      try {
        const [row] = await this.db.query<AuditExportRow>('SELECT * FROM registry.audit_exports WHERE tenant_id = $1 AND enabled', [
          tenantId,
        ]);
        return row ? await fn(row) : undefined;
      } finally {
        await session.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_SPACE, tenantId]).catch(() => {
          broken = true;
        });
      }
    } finally {
      // A session whose unlock failed may still hold the lock: it is closed rather than pooled.
      session.release(broken);
    }
  }

  /**
   * The next entries after the cursor, in (txid, id) order, from transactions older than every
   * running one: nothing can later appear before what this returns (see the migration).
   */
  readBatch(tenantId: string, cursorTxid: string, cursorId: string, limit: number): Promise<AuditEntry[]> {
    return this.db.query<AuditEntry>(
      `SELECT id::text AS id, txid::text AS txid, actor, action, target, details, at FROM registry.audit_log
       WHERE tenant_id = $1 AND (txid, id) > ($2::xid8, $3::bigint) AND txid < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY txid, id LIMIT $4`,
      [tenantId, cursorTxid, cursorId, limit],
    );
  }

  /**
   * Moves the cursor to `last`, never backwards (a stale exporter that lost its lock with its
   * connection cannot undo a newer one's progress); false when the export is gone or already past.
   */
  async advance(tenantId: string, last: AuditEntry, count: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE registry.audit_exports SET cursor_txid = $2::xid8, cursor_id = $3, exported = exported + $4, status = 'ok', last_error = NULL,
         failures = 0, last_export_at = now() WHERE tenant_id = $1 AND (cursor_txid, cursor_id) < ($2::xid8, $3::bigint) RETURNING tenant_id`,
      [tenantId, last.txid, last.id, count],
    );
    return rows.length === 1;
  }

  /** A tenant that caught up (or had its turn) is due again after `nextMs`. */
  async later(tenantId: string, nextMs: number): Promise<void> {
    await this.db.query(
      'UPDATE registry.audit_exports SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000) WHERE tenant_id = $1',
      [tenantId, nextMs],
    );
  }

  /**
   * Records a failed attempt (the error the API shows) and backs off: 2^failures × `baseMs`, at
   * most `maxMs`. Only for the settings it was made with (`settings_version`): a sink saved since is
   * not marked failed by an attempt against the previous one.
   */
  async fail(row: Pick<AuditExportRow, 'tenant_id' | 'settings_version'>, message: string, baseMs: number, maxMs: number): Promise<void> {
    await this.db.query(
      `UPDATE registry.audit_exports SET status = 'error', last_error = $3, last_error_at = now(), failures = failures + 1,
         next_attempt_at = now() + make_interval(secs => LEAST($5::double precision, $4::double precision * power(2, LEAST(failures, 20))) / 1000)
       WHERE tenant_id = $1 AND settings_version = $2`,
      [row.tenant_id, row.settings_version, message.slice(0, MAX_ERROR_TEXT), baseMs, maxMs],
    );
  }
}
