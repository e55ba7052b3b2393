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
    await this.pool.query(
      `INSERT INTO ${this.table} (state_hash, tenant_id, purpose, data, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [hashId(state), tenantId, purpose, this.box.seal(JSON.stringify(data), `federation:${tenantId}:${purpose}`), ttlSeconds],
    );
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

  /**
   * Marks a one-time value (a link ticket id) used: true the first time, false ever after (until
   * it expires, which must be after the value itself stops being accepted). One INSERT on the
   * primary key, so two concurrent uses cannot both win.
   */
  async consumeOnce(value: string, tenantId: string, purpose: string, ttlSeconds: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${this.table} (state_hash, tenant_id, purpose, data, expires_at) VALUES ($1, $2, $3, '', now() + make_interval(secs => $4)) ON CONFLICT (state_hash) DO NOTHING`,
      [hashId(`used:${purpose}:${value}`), tenantId, purpose, ttlSeconds],
    );
    return rowCount === 1;
  }

  /** Whether consumeOnce already took `value` (a page can then say "already used" before asking anything). */
  async consumed(value: string, purpose: string): Promise<boolean> {
    const { rows } = await this.pool.query(`SELECT 1 FROM ${this.table} WHERE state_hash = $1 AND expires_at > now()`, [
      hashId(`used:${purpose}:${value}`),
    ]);
    return rows.length > 0;
  }
}
