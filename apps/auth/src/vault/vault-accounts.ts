import type { Pool } from 'pg';

/** One upstream account a user linked (no token: the connected-accounts page never shows one). */
export interface LinkedAccount {
  connector: string;
  linkedAt: Date;
  /** When the tokens were last written (the link itself or a refresh). */
  refreshedAt: Date;
  /** When the current access token expires, if the upstream said. */
  expiresAt: Date | null;
}

/** At most this many rows are listed per user (a tenant has at most 64 connectors). */
const MAX_LISTED = 100;

/**
 * Read/list/delete over the vault's rows for the connected-accounts page: which upstream
 * accounts a user of a tenant linked, and unlinking one. Never opens a sealed token.
 */
export class VaultAccounts {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.table = `"${schema}".vault_token`;
  }

  /** The user's linked accounts at one tenant, by connector id. */
  async list(tenantId: string, subject: string): Promise<LinkedAccount[]> {
    const { rows } = await this.pool.query<{ connector: string; linked_at: Date; updated_at: Date; expires_at: Date | null }>(
      `SELECT connector, linked_at, updated_at, expires_at FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 ORDER BY connector LIMIT ${MAX_LISTED}`,
      [tenantId, subject],
    );
    return rows.map((r) => ({ connector: r.connector, linkedAt: r.linked_at, refreshedAt: r.updated_at, expiresAt: r.expires_at }));
  }

  /** Unlinks one account; false when there was none. */
  async unlink(tenantId: string, subject: string, connector: string): Promise<boolean> {
    const res = await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [
      tenantId,
      subject,
      connector,
    ]);
    return (res.rowCount ?? 0) > 0;
  }
}
