import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Pool } from 'pg';
import { hashId, type SecretBox } from '@switchboard/secret-box';
import { oidc } from '../oidc/native-modules';

/**
 * oidc-provider storage adapter over one table, scoped to a tenant. Ids are stored as
 * SHA-256 (codes, refresh tokens and sessions are bearer values), `jti` is stripped from the
 * stored payload, client secrets are sealed, and `consume` is a compare-and-set so a code or
 * refresh token is redeemed at most once even under concurrent requests
 * (AUTH-NOTES §1.3): the loser revokes the whole grant and fails with `invalid_grant`.
 */
export class PgAdapter implements Adapter {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly tenantId: string,
    private readonly model: string,
    private readonly box: SecretBox,
  ) {
    this.table = `"${schema}".oidc_model`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const stored: Record<string, unknown> = { ...payload };
    // No id is stored in clear, sessions included (issue 18): the row is found by the id's hash, and
    // `find` puts the id back from the caller. A session found by uid comes back without its id,
    // which is all oidc-provider needs there (it only reads accountId and grants of it).
    if (stored.jti === id) delete stored.jti;
    if (this.model === 'Client' && typeof stored.client_secret === 'string') {
      stored.client_secret = this.box.seal(stored.client_secret, this.aad(id));
      stored.__sealed = true;
    }
    const grantId = payload.grantId ?? (this.model === 'Grant' ? id : null);
    const uidHash = typeof payload.uid === 'string' ? hashId(payload.uid) : null;
    await this.pool.query(
      `INSERT INTO ${this.table} (tenant_id, model, id_hash, payload, grant_id, uid_hash, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
       ON CONFLICT (tenant_id, model, id_hash) DO UPDATE
         SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid_hash = EXCLUDED.uid_hash, expires_at = EXCLUDED.expires_at`,
      [this.tenantId, this.model, hashId(id), JSON.stringify(stored), grantId, uidHash, Number.isFinite(expiresIn) && expiresIn > 0 ? Math.ceil(expiresIn) : null],
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.pool.query<{ payload: Record<string, unknown>; consumed: number | null }>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM ${this.table}
       WHERE tenant_id = $1 AND model = $2 AND id_hash = $3 AND (expires_at IS NULL OR expires_at > now())`,
      [this.tenantId, this.model, hashId(id)],
    );
    return rows[0] ? this.revive(rows[0], id) : undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.pool.query<{ payload: Record<string, unknown>; consumed: number | null }>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM ${this.table}
       WHERE tenant_id = $1 AND model = $2 AND uid_hash = $3 AND (expires_at IS NULL OR expires_at > now())`,
      [this.tenantId, this.model, hashId(uid)],
    );
    return rows[0] ? this.revive(rows[0], undefined) : undefined;
  }

  async findByUserCode(): Promise<AdapterPayload | undefined> {
    return undefined; // device flow is disabled
  }

  async consume(id: string): Promise<void> {
    const won = await this.pool.query(
      `UPDATE ${this.table} SET consumed_at = now()
       WHERE tenant_id = $1 AND model = $2 AND id_hash = $3 AND consumed_at IS NULL RETURNING 1`,
      [this.tenantId, this.model, hashId(id)],
    );
    if (won.rowCount === 1) return;
    // Lost the race (or replay): the artefact was already redeemed, so treat it as reuse.
    const { rows } = await this.pool.query<{ grant_id: string | null }>(
      `SELECT grant_id FROM ${this.table} WHERE tenant_id = $1 AND model = $2 AND id_hash = $3`,
      [this.tenantId, this.model, hashId(id)],
    );
    const grantId = rows[0]?.grant_id;
    if (grantId) await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND grant_id = $2`, [this.tenantId, grantId]);
    throw new oidc.errors.InvalidGrant('grant request is invalid');
  }

  async destroy(id: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND model = $2 AND id_hash = $3`, [this.tenantId, this.model, hashId(id)]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND model = $2 AND grant_id = $3`, [this.tenantId, this.model, grantId]);
  }

  private revive(row: { payload: Record<string, unknown>; consumed: number | null }, id: string | undefined): AdapterPayload {
    const payload: Record<string, unknown> = { ...row.payload };
    if (id !== undefined && payload.jti === undefined && this.model !== 'Client') payload.jti = id;
    if (payload.__sealed === true && typeof payload.client_secret === 'string' && id !== undefined) {
      payload.client_secret = this.box.open(payload.client_secret, this.aad(id));
    }
    delete payload.__sealed;
    if (row.consumed !== null) payload.consumed = Number(row.consumed);
    return payload as AdapterPayload;
  }

  private aad(id: string): string {
    return `client:${this.tenantId}:${id}`;
  }
}

/** Deletes expired artefacts of every tenant (run periodically). */
export async function deleteExpiredArtefacts(pool: Pool, schema: string): Promise<number> {
  const res = await pool.query(`DELETE FROM "${schema}".oidc_model WHERE expires_at < now() - interval '5 minutes'`);
  await pool.query(`DELETE FROM "${schema}".federation_state WHERE expires_at < now()`);
  return res.rowCount ?? 0;
}
