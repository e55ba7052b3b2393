import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Pool } from 'pg';
import { hashId, type SecretBox } from '@switchboard/secret-box';
import { oidc } from '../oidc/native-modules';

/** Expiry and cap of dynamically registered clients (DCR_CLIENT_IDLE_DAYS, DCR_MAX_CLIENTS_PER_TENANT). */
export interface DcrClientPolicy {
  /** A client unused this long is gone: `find` misses it at once, the sweep deletes it and its artefacts. */
  idleSeconds: number;
  /** Live (not idle-expired) registered clients per tenant; one more ⇒ `invalid_client_metadata`. */
  maxPerTenant: number;
}

/**
 * How stale `last_used_at` may get before a use writes it: 1/30 of the idle period, at most a
 * day. A client used 10,000 times a day costs one UPDATE a day, and the expiry is off by at most
 * that interval (a day of 30).
 */
export function touchIntervalSeconds(idleSeconds: number): number {
  return Math.max(1, Math.min(86_400, Math.floor(idleSeconds / 30)));
}

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
    /** Set for the Client model of tenant issuers (not the platform's static client): expiry and cap. */
    private readonly clients?: DcrClientPolicy,
  ) {
    this.table = `"${schema}".oidc_model`;
  }

  /** Whether this adapter stores dynamically registered clients under the expiry/cap policy. */
  private get dcr(): DcrClientPolicy | undefined {
    return this.model === 'Client' ? this.clients : undefined;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const stored: Record<string, unknown> = { ...payload };
    // No id is stored in clear, sessions included (issue 18): the row is found by the id's hash, and
    // `find` puts the id back from the caller. A session found by uid comes back without its id,
    // which is all oidc-provider needs there (it only reads accountId and grants of it).
    if (stored.jti === id) delete stored.jti;
    // A device code is also found by its user code or uid and then saved again, which needs its id:
    // kept sealed (never in clear) so those lookups can give it back.
    if (this.model === 'DeviceCode') stored.__sealedId = this.box.seal(id, this.deviceAad());
    if (this.model === 'Client' && typeof stored.client_secret === 'string') {
      stored.client_secret = this.box.seal(stored.client_secret, this.aad(id));
      stored.__sealed = true;
    }
    const grantId = payload.grantId ?? (this.model === 'Grant' ? id : null);
    const uidHash = typeof payload.uid === 'string' ? hashId(payload.uid) : null;
    // Device codes (platform issuer only) are looked up by the normalised user code a person types.
    const userCodeHash = typeof payload.userCode === 'string' ? hashId(payload.userCode) : null;
    const sql = `INSERT INTO ${this.table} (tenant_id, model, id_hash, payload, grant_id, uid_hash, expires_at, last_used_at, user_code_hash)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END, CASE WHEN $2 = 'Client' THEN now() END, $8)
       ON CONFLICT (tenant_id, model, id_hash) DO UPDATE
         SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid_hash = EXCLUDED.uid_hash, expires_at = EXCLUDED.expires_at, last_used_at = EXCLUDED.last_used_at,
             user_code_hash = EXCLUDED.user_code_hash`;
    const params = [
      this.tenantId,
      this.model,
      hashId(id),
      JSON.stringify(stored),
      grantId,
      uidHash,
      Number.isFinite(expiresIn) && expiresIn > 0 ? Math.ceil(expiresIn) : null,
      userCodeHash,
    ];
    const dcr = this.dcr;
    if (!dcr) {
      await this.pool.query(sql, params);
      return;
    }
    // A new registration counts against the tenant's cap; the count and the insert run under a
    // per-tenant advisory lock so parallel registrations cannot overshoot it.
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.table}:dcr:${this.tenantId}`]);
      const { rows } = await client.query<{ live: string; mine: boolean | null }>(
        `SELECT count(*) FILTER (WHERE id_hash <> $2) AS live, bool_or(id_hash = $2) AS mine FROM ${this.table}
          WHERE tenant_id = $1 AND model = 'Client' AND last_used_at > now() - make_interval(secs => $3::int)`,
        [this.tenantId, hashId(id), dcr.idleSeconds],
      );
      if (!rows[0]?.mine && Number(rows[0]?.live ?? 0) >= dcr.maxPerTenant) {
        await client.query('ROLLBACK');
        throw new oidc.errors.InvalidClientMetadata(
          `this authorization server has reached its limit of ${dcr.maxPerTenant} registered clients; clients unused for ${Math.round(dcr.idleSeconds / 86_400)} days expire and free their place`,
        );
      }
      await client.query(sql, params);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const dcr = this.dcr;
    if (dcr) return this.findClient(id, dcr);
    const { rows } = await this.pool.query<{ payload: Record<string, unknown>; consumed: number | null }>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM ${this.table}
       WHERE tenant_id = $1 AND model = $2 AND id_hash = $3 AND (expires_at IS NULL OR expires_at > now())`,
      [this.tenantId, this.model, hashId(id)],
    );
    return rows[0] ? this.revive(rows[0], id) : undefined;
  }

  /**
   * A registered client, unless unused past the idle period (then it is gone even before the
   * sweep deletes it). Every authorize and token request reads the client, so the read also
   * tells how stale `last_used_at` is and only a stale one is written (once per touch interval,
   * off the request's path: a failed touch costs at most one interval of lifetime).
   */
  private async findClient(id: string, dcr: DcrClientPolicy): Promise<AdapterPayload | undefined> {
    const idHash = hashId(id);
    const { rows } = await this.pool.query<{ payload: Record<string, unknown>; consumed: number | null; stale: boolean }>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed,
              (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $5::int)) AS stale
         FROM ${this.table}
        WHERE tenant_id = $1 AND model = $2 AND id_hash = $3 AND (expires_at IS NULL OR expires_at > now())
          AND (last_used_at IS NULL OR last_used_at > now() - make_interval(secs => $4::int))`,
      [this.tenantId, this.model, idHash, dcr.idleSeconds, touchIntervalSeconds(dcr.idleSeconds)],
    );
    if (!rows[0]) return undefined;
    if (rows[0].stale) {
      this.pool
        .query(`UPDATE ${this.table} SET last_used_at = now() WHERE tenant_id = $1 AND model = $2 AND id_hash = $3`, [
          this.tenantId,
          this.model,
          idHash,
        ])
        .catch(() => undefined);
    }
    return this.revive(rows[0], id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.pool.query<{ payload: Record<string, unknown>; consumed: number | null }>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM ${this.table}
       WHERE tenant_id = $1 AND model = $2 AND uid_hash = $3 AND (expires_at IS NULL OR expires_at > now())`,
      [this.tenantId, this.model, hashId(uid)],
    );
    return rows[0] ? this.revive(rows[0], undefined) : undefined;
  }

  /** A device code by its user code (RFC 8628; the platform issuer's device flow). */
  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const { rows } = await this.pool.query<{ payload: Record<string, unknown>; consumed: number | null }>(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM ${this.table}
       WHERE tenant_id = $1 AND model = $2 AND user_code_hash = $3 AND (expires_at IS NULL OR expires_at > now())`,
      [this.tenantId, this.model, hashId(userCode)],
    );
    return rows[0] ? this.revive(rows[0], undefined) : undefined;
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
    await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND model = $2 AND id_hash = $3`, [
      this.tenantId,
      this.model,
      hashId(id),
    ]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND model = $2 AND grant_id = $3`, [
      this.tenantId,
      this.model,
      grantId,
    ]);
  }

  private revive(row: { payload: Record<string, unknown>; consumed: number | null }, id: string | undefined): AdapterPayload {
    const payload: Record<string, unknown> = { ...row.payload };
    if (id !== undefined && payload.jti === undefined && this.model !== 'Client') payload.jti = id;
    if (payload.__sealed === true && typeof payload.client_secret === 'string' && id !== undefined) {
      payload.client_secret = this.box.open(payload.client_secret, this.aad(id));
    }
    delete payload.__sealed;
    if (typeof payload.__sealedId === 'string') {
      if (payload.jti === undefined) payload.jti = this.box.open(payload.__sealedId, this.deviceAad());
      delete payload.__sealedId;
    }
    if (row.consumed !== null) payload.consumed = Number(row.consumed);
    return payload as AdapterPayload;
  }

  private aad(id: string): string {
    return `client:${this.tenantId}:${id}`;
  }

  private deviceAad(): string {
    return `device-code:${this.tenantId}`;
  }
}

/**
 * Deletes expired artefacts of every tenant (run periodically); with `clientIdleSeconds`, also
 * registered clients unused that long and everything issued to them (grants, refresh tokens,
 * codes, registration access tokens: their payload names the client).
 */
export async function deleteExpiredArtefacts(pool: Pool, schema: string, clientIdleSeconds?: number): Promise<number> {
  const res = await pool.query(`DELETE FROM "${schema}".oidc_model WHERE expires_at < now() - interval '5 minutes'`);
  await pool.query(`DELETE FROM "${schema}".federation_state WHERE expires_at < now()`);
  let clients = 0;
  if (clientIdleSeconds !== undefined) {
    const swept = await pool.query(
      `WITH gone AS (
         DELETE FROM "${schema}".oidc_model WHERE model = 'Client' AND last_used_at < now() - make_interval(secs => $1::int)
         RETURNING tenant_id, payload->>'client_id' AS client_id
       )
       DELETE FROM "${schema}".oidc_model m USING gone
        WHERE m.tenant_id = gone.tenant_id AND m.model <> 'Client' AND m.payload->>'clientId' = gone.client_id
       RETURNING 1`,
      [clientIdleSeconds],
    );
    clients = swept.rowCount ?? 0;
  }
  return (res.rowCount ?? 0) + clients;
}
