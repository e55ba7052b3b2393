import type { Pool } from 'pg';
import type { SecretBox } from '@switchboard/secret-box';

/** Bounds of the enterprise-grant token cache (what a tenant's users and upstreams can make us store). */
export const GRANT_CACHE_LIMITS = {
  /** Cached tokens per tenant; past it new tokens are used but not stored. */
  perTenant: 10_000,
  /** Characters of one access token; a larger one is refused before it is used or stored. */
  tokenChars: 8 * 1024,
  /** Longest a token is kept, whatever `expires_in` says (seconds). */
  maxTtlS: 3600,
  /** Kept this long when the upstream gives no `expires_in` (seconds). */
  defaultTtlS: 300,
} as const;

/** A cached upstream token (epoch seconds). */
export interface GrantToken {
  accessToken: string;
  expiresAt: number;
}

/**
 * Upstream tokens obtained from a user's enterprise identity, sealed with SECRETS_KEY (AAD binds
 * tenant, subject, connector) and tagged with the grant settings they came from, so changed
 * settings never reuse an old token. Bounded per tenant in rows; each row expires with its token.
 */
export class GrantTokenCache {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly box: SecretBox,
    /** Cached tokens per tenant (GRANT_CACHE_LIMITS.perTenant unless a test sets a small one). */
    private readonly perTenant: number = GRANT_CACHE_LIMITS.perTenant,
  ) {
    this.table = `"${schema}".grant_token`;
  }

  /** The cached token when it is still valid `skewS` seconds from now and came from `grantKey`. */
  async get(tenantId: string, subject: string, connector: string, grantKey: string, skewS: number): Promise<GrantToken | undefined> {
    const { rows } = await this.pool.query<{ sealed: string }>(
      `SELECT sealed FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3 AND grant_key = $4 AND expires_at > now() + make_interval(secs => $5)`,
      [tenantId, subject, connector, grantKey, skewS],
    );
    return rows[0] ? (JSON.parse(this.box.open(rows[0].sealed, this.aad(tenantId, subject, connector))) as GrantToken) : undefined;
  }

  /** Stores a token unless the tenant is at its cap (after dropping its expired rows); false when not stored. */
  async put(tenantId: string, subject: string, connector: string, grantKey: string, token: GrantToken): Promise<boolean> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND expires_at <= now()`, [tenantId]);
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${this.table} (tenant_id, subject, connector, grant_key, sealed, expires_at)
       SELECT $1, $2, $3, $4, $5, to_timestamp($6::bigint)
       WHERE (SELECT count(*) FROM ${this.table} WHERE tenant_id = $1) < $7
          OR EXISTS (SELECT 1 FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3)
       ON CONFLICT (tenant_id, subject, connector) DO UPDATE SET grant_key = EXCLUDED.grant_key, sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at`,
      [
        tenantId,
        subject,
        connector,
        grantKey,
        this.box.seal(JSON.stringify(token), this.aad(tenantId, subject, connector)),
        token.expiresAt,
        this.perTenant,
      ],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Forgets a user's token (the upstream refused it). */
  async delete(tenantId: string, subject: string, connector: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [
      tenantId,
      subject,
      connector,
    ]);
  }

  private aad(tenantId: string, subject: string, connector: string): string {
    return `grant-token:${tenantId}:${subject}:${connector}`;
  }
}
