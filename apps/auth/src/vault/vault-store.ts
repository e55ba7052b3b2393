import type { Pool } from 'pg';
import type { SecretBox } from '@switchboard/secret-box';

/** An upstream connector's tokens for one user. */
export interface VaultedTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch seconds. */
  expiresAt?: number;
}

/** One linked account as its owner may see it (no token material). */
export interface VaultedAccount {
  connector: string;
  /** Epoch seconds the access token expires (refreshed on use when a refresh token is held). */
  expiresAt?: number;
  refreshable: boolean;
  /** Epoch seconds of the last link or refresh. */
  updatedAt: number;
}

/** What a refresh produced: new tokens, a refusal by the upstream AS (relink), or a transient failure (keep the row). */
export type RefreshOutcome = { kind: 'ok'; tokens: VaultedTokens } | { kind: 'refused' } | { kind: 'unavailable' };

/** How long a replica waits for another replica's refresh of the same entry before giving up (the call then fails, the link stays). */
const REFRESH_LOCK_TIMEOUT_MS = 20_000;

/** Per-user upstream tokens, sealed with SECRETS_KEY and bound to (tenant, subject, connector). */
export class VaultStore {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly box: SecretBox,
  ) {
    this.table = `"${schema}".vault_token`;
  }

  async get(tenantId: string, subject: string, connector: string): Promise<VaultedTokens | undefined> {
    const { rows } = await this.pool.query<{ sealed: string }>(`SELECT sealed FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [tenantId, subject, connector]);
    if (!rows[0]) return undefined;
    return this.open(rows[0].sealed, tenantId, subject, connector);
  }

  async put(tenantId: string, subject: string, connector: string, tokens: VaultedTokens): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (tenant_id, subject, connector, sealed, expires_at, updated_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5::bigint IS NULL THEN NULL ELSE to_timestamp($5::bigint) END, now())
       ON CONFLICT (tenant_id, subject, connector) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at, updated_at = now()`,
      [tenantId, subject, connector, this.box.seal(JSON.stringify(tokens), this.aad(tenantId, subject, connector)), tokens.expiresAt ?? null],
    );
  }

  /** Removes a link; true when there was one. */
  async delete(tenantId: string, subject: string, connector: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [tenantId, subject, connector]);
    return (rowCount ?? 0) > 0;
  }

  /** A subject's linked accounts in a tenant (at most one per connector, so bounded by the tenant's connector cap). */
  async list(tenantId: string, subject: string): Promise<VaultedAccount[]> {
    const { rows } = await this.pool.query<{ connector: string; sealed: string; updated: number }>(
      `SELECT connector, sealed, extract(epoch FROM updated_at)::bigint AS updated FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 ORDER BY connector LIMIT 1000`,
      [tenantId, subject],
    );
    return rows.map((r) => {
      const t = this.open(r.sealed, tenantId, subject, r.connector);
      return { connector: r.connector, ...(t.expiresAt !== undefined ? { expiresAt: t.expiresAt } : {}), refreshable: t.refreshToken !== undefined, updatedAt: Number(r.updated) };
    });
  }

  /**
   * Single-flight refresh across replicas: the entry's row is locked (`SELECT … FOR UPDATE`),
   * re-read, and refreshed only if it is still stale — a replica that waited on the lock finds
   * the winner's fresh tokens and uses them, so a rotating refresh token is redeemed once and a
   * race never forces a relink. A refusal by the upstream AS deletes the entry (relink needed);
   * a transient failure keeps it. Undefined when there is no entry (any more).
   */
  async refreshOnce(
    tenantId: string,
    subject: string,
    connector: string,
    stale: (t: VaultedTokens) => boolean,
    refresh: (t: VaultedTokens) => Promise<RefreshOutcome>,
  ): Promise<{ tokens?: VaultedTokens; outcome: 'fresh' | 'refreshed' | 'refused' | 'unavailable' | 'missing' }> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL lock_timeout = '${REFRESH_LOCK_TIMEOUT_MS}ms'`);
      const { rows } = await client.query<{ sealed: string }>(`SELECT sealed FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3 FOR UPDATE`, [tenantId, subject, connector]);
      if (!rows[0]) {
        await client.query('COMMIT');
        return { outcome: 'missing' };
      }
      const current = this.open(rows[0].sealed, tenantId, subject, connector);
      if (!stale(current)) {
        await client.query('COMMIT');
        return { tokens: current, outcome: 'fresh' };
      }
      const next = current.refreshToken ? await refresh(current) : ({ kind: 'refused' } as const);
      if (next.kind === 'ok') {
        await client.query(`UPDATE ${this.table} SET sealed = $4, expires_at = CASE WHEN $5::bigint IS NULL THEN NULL ELSE to_timestamp($5::bigint) END, updated_at = now() WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [
          tenantId,
          subject,
          connector,
          this.box.seal(JSON.stringify(next.tokens), this.aad(tenantId, subject, connector)),
          next.tokens.expiresAt ?? null,
        ]);
      } else if (next.kind === 'refused') {
        await client.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [tenantId, subject, connector]);
      }
      await client.query('COMMIT');
      return next.kind === 'ok' ? { tokens: next.tokens, outcome: 'refreshed' } : { outcome: next.kind };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      // Lock wait timed out (another replica's refresh hangs): transient, the link stays.
      if ((err as { code?: string }).code === '55P03') return { outcome: 'unavailable' };
      throw err;
    } finally {
      client.release();
    }
  }

  private open(sealed: string, tenantId: string, subject: string, connector: string): VaultedTokens {
    return JSON.parse(this.box.open(sealed, this.aad(tenantId, subject, connector))) as VaultedTokens;
  }

  private aad(tenantId: string, subject: string, connector: string): string {
    return `vault:${tenantId}:${subject}:${connector}`;
  }
}
