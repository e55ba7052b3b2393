import type { Pool } from 'pg';
import { hashId, type SecretBox } from '@switchboard/secret-box';

/**
 * Single-use, expiring state of an upstream login or connector link, keyed by the hash of
 * the OAuth `state` and sealed (it holds the PKCE verifier).
 */
export class FederationStateStore {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly box: SecretBox,
  ) {
    this.table = `"${schema}".federation_state`;
  }

  async put(state: string, tenantId: string, purpose: string, data: object, ttlSeconds = 600): Promise<void> {
    await this.pool.query(`INSERT INTO ${this.table} (state_hash, tenant_id, purpose, data, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`, [
      hashId(state),
      tenantId,
      purpose,
      this.box.seal(JSON.stringify(data), `federation:${tenantId}:${purpose}`),
      ttlSeconds,
    ]);
  }

  /** Takes the state out (at most once); undefined when unknown, expired, or of another tenant/purpose. */
  async take<T>(state: string, tenantId: string, purpose: string): Promise<T | undefined> {
    const { rows } = await this.pool.query<{ data: string }>(
      `DELETE FROM ${this.table} WHERE state_hash = $1 AND tenant_id = $2 AND purpose = $3 AND expires_at > now() RETURNING data`,
      [hashId(state), tenantId, purpose],
    );
    if (!rows[0]) return undefined;
    return JSON.parse(this.box.open(rows[0].data, `federation:${tenantId}:${purpose}`)) as T;
  }
}
