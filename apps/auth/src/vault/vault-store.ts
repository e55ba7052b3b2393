import type { Pool } from 'pg';
import type { SecretBox } from '@switchboard/secret-box';

/** An upstream connector's tokens for one user. */
export interface VaultedTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch seconds. */
  expiresAt?: number;
}

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
    return JSON.parse(this.box.open(rows[0].sealed, this.aad(tenantId, subject, connector))) as VaultedTokens;
  }

  async put(tenantId: string, subject: string, connector: string, tokens: VaultedTokens): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (tenant_id, subject, connector, sealed, expires_at, updated_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5::bigint IS NULL THEN NULL ELSE to_timestamp($5::bigint) END, now())
       ON CONFLICT (tenant_id, subject, connector) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at, updated_at = now()`,
      [tenantId, subject, connector, this.box.seal(JSON.stringify(tokens), this.aad(tenantId, subject, connector)), tokens.expiresAt ?? null],
    );
  }

  async delete(tenantId: string, subject: string, connector: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [tenantId, subject, connector]);
  }

  private aad(tenantId: string, subject: string, connector: string): string {
    return `vault:${tenantId}:${subject}:${connector}`;
  }
}
