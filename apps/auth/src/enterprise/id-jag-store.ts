import { createHash } from 'node:crypto';
import type { Pool } from 'pg';

/** Expired `jti` rows deleted per accepted assertion: cleanup keeps pace with inserts without a sweeper. */
const CLEANUP_BATCH = 100;
/** Days an audit row is kept (older ones are deleted as new ones arrive). */
const AUDIT_RETENTION_DAYS = 90;
/** Longest text kept per audit column (issuer, client id, subject come from the assertion). */
const AUDIT_TEXT_MAX = 512;

/** One JWT-bearer answer for the audit: `check` names the refusing check, `none` when granted. */
export interface IdJagAuditEntry {
  tenantId: string;
  outcome: 'granted' | 'refused';
  check: string;
  issuer?: string;
  clientId?: string;
  subject?: string;
}

/**
 * Postgres state of the ID-JAG grant, shared by every auth replica: the `jti` replay set
 * (tenant- and issuer-scoped, kept until the assertion's `exp`) and the audit trail of every
 * answer. `jti` values are stored hashed: they are the IdP's, and only equality matters.
 */
export class IdJagStore {
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  /** Records `jti` as used; false when it already was (a replay) and has not expired yet. */
  async useOnce(tenantId: string, issuer: string, jti: string, expiresAt: Date): Promise<boolean> {
    const hash = createHash('sha256').update(jti).digest('base64url');
    // An expired row of the same jti (the IdP reused it after expiry) is replaced, not a replay.
    const { rowCount } = await this.pool.query(
      `INSERT INTO "${this.schema}".id_jag_jti (tenant_id, issuer, jti_hash, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, issuer, jti_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE id_jag_jti.expires_at < now()`,
      [tenantId, issuer, hash, expiresAt],
    );
    if (rowCount === 1) {
      await this.pool.query(
        `DELETE FROM "${this.schema}".id_jag_jti WHERE ctid IN (SELECT ctid FROM "${this.schema}".id_jag_jti WHERE expires_at < now() LIMIT ${CLEANUP_BATCH})`,
      );
    }
    return rowCount === 1;
  }

  /** Whether `jti` was used and has not expired yet (a dry-run check; spends nothing). */
  async used(tenantId: string, issuer: string, jti: string): Promise<boolean> {
    const hash = createHash('sha256').update(jti).digest('base64url');
    const { rowCount } = await this.pool.query(
      `SELECT 1 FROM "${this.schema}".id_jag_jti WHERE tenant_id = $1 AND issuer = $2 AND jti_hash = $3 AND expires_at >= now()`,
      [tenantId, issuer, hash],
    );
    return rowCount === 1;
  }

  async audit(e: IdJagAuditEntry): Promise<void> {
    const cut = (s: string | undefined) => (s === undefined ? null : s.slice(0, AUDIT_TEXT_MAX));
    await this.pool.query(
      `INSERT INTO "${this.schema}".id_jag_audit (tenant_id, outcome, check_name, issuer, client_id, subject) VALUES ($1, $2, $3, $4, $5, $6)`,
      [e.tenantId, e.outcome, e.check, cut(e.issuer), cut(e.clientId), cut(e.subject)],
    );
    await this.pool.query(
      `DELETE FROM "${this.schema}".id_jag_audit WHERE id IN (SELECT id FROM "${this.schema}".id_jag_audit WHERE at < now() - interval '${AUDIT_RETENTION_DAYS} days' ORDER BY id LIMIT ${CLEANUP_BATCH})`,
    );
  }
}
