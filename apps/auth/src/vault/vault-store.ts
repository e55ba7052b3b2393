import { randomUUID } from 'node:crypto';
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

/** How refreshes are leased and bounded (defaults in DEFAULT_REFRESH_OPTIONS). */
export interface VaultRefreshOptions {
  /** Seconds a claimed refresh belongs to its claimant: longer than any upstream call (discovery + token request). */
  leaseS: number;
  /**
   * How long a caller waits for another caller's refresh of the same entry, or for a free refresh
   * slot of its tenant: a little longer than one upstream request may take, so a waiter normally
   * sees the holder's outcome.
   */
  waitMs: number;
  /** Refreshes of one tenant in flight at once, across replicas (a hanging token endpoint ties up at most this many). */
  perTenant: number;
  /** First poll interval while waiting; it grows to MAX_POLL_MS. */
  pollMs: number;
  /** Called each time a caller goes back to waiting (tests observe the race with it). */
  onWait?: () => void;
}

export const DEFAULT_REFRESH_OPTIONS: VaultRefreshOptions = { leaseS: 60, waitMs: 12_000, perTenant: 8, pollMs: 50 };
const MAX_POLL_MS = 500;

type Claim =
  | { kind: 'missing' }
  | { kind: 'fresh'; tokens: VaultedTokens }
  | { kind: 'claimed'; tokens: VaultedTokens; lease: string }
  /** Another caller holds this entry's lease. */
  | { kind: 'busy' }
  /** Nobody holds the lease (any more) but the tokens are still stale: the holder's refresh failed. */
  | { kind: 'released' }
  /** The tenant already has its cap of refreshes in flight. */
  | { kind: 'full' };

/** Per-user upstream tokens, sealed with SECRETS_KEY and bound to (tenant, subject, connector). */
export class VaultStore {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly box: SecretBox,
    private readonly refreshOptions: VaultRefreshOptions = DEFAULT_REFRESH_OPTIONS,
  ) {
    this.table = `"${schema}".vault_token`;
  }

  async get(tenantId: string, subject: string, connector: string): Promise<VaultedTokens | undefined> {
    const { rows } = await this.pool.query<{ sealed: string }>(
      `SELECT sealed FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`,
      [tenantId, subject, connector],
    );
    if (!rows[0]) return undefined;
    return this.open(rows[0].sealed, tenantId, subject, connector);
  }

  async put(tenantId: string, subject: string, connector: string, tokens: VaultedTokens): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (tenant_id, subject, connector, sealed, expires_at, updated_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5::bigint IS NULL THEN NULL ELSE to_timestamp($5::bigint) END, now())
       ON CONFLICT (tenant_id, subject, connector) DO UPDATE SET sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at, updated_at = now(), refresh_lease = NULL, refreshing_until = NULL`,
      [
        tenantId,
        subject,
        connector,
        this.box.seal(JSON.stringify(tokens), this.aad(tenantId, subject, connector)),
        tokens.expiresAt ?? null,
      ],
    );
  }

  /** Removes a link; true when there was one. */
  async delete(tenantId: string, subject: string, connector: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`DELETE FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`, [
      tenantId,
      subject,
      connector,
    ]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Removes a tenant's entries whose subject (`<tenant>|<idp-id>|<sub>`) comes from an identity
   * source not in `keep` (a former IdP: nobody can sign in as those subjects any more, and their
   * tokens must not wait for a look-alike). Subjects without that shape other than the tenant
   * admin's are legacy and go too; the admin's own link stays. Runs on `q` so the caller can
   * record the purge in the same transaction. Answers what went, never token material.
   */
  async deleteOtherSources(
    tenantId: string,
    keep: string[],
    q: Pick<Pool, 'query'> = this.pool,
  ): Promise<{ rows: number; connectors: string[]; sources: string[] }> {
    const { rows } = await q.query<{ n: number; connectors: string[]; sources: string[] }>(
      `WITH gone AS (
         DELETE FROM ${this.table} WHERE tenant_id = $1 AND starts_with(subject, $1 || '|') AND split_part(subject, '|', 2) <> ALL($2::text[])
         RETURNING connector, split_part(subject, '|', 2) AS source
       )
       SELECT count(*)::int AS n, coalesce(jsonb_agg(DISTINCT connector), '[]') AS connectors, coalesce(jsonb_agg(DISTINCT source), '[]') AS sources FROM gone`,
      [tenantId, keep],
    );
    return { rows: rows[0]?.n ?? 0, connectors: rows[0]?.connectors ?? [], sources: rows[0]?.sources ?? [] };
  }

  /** A subject's linked accounts in a tenant (at most one per connector, so bounded by the tenant's connector cap). */
  async list(tenantId: string, subject: string): Promise<VaultedAccount[]> {
    const { rows } = await this.pool.query<{ connector: string; sealed: string; updated: number }>(
      `SELECT connector, sealed, extract(epoch FROM updated_at)::bigint AS updated FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 ORDER BY connector LIMIT 1000`,
      [tenantId, subject],
    );
    return rows.map((r) => {
      const t = this.open(r.sealed, tenantId, subject, r.connector);
      return {
        connector: r.connector,
        ...(t.expiresAt !== undefined ? { expiresAt: t.expiresAt } : {}),
        refreshable: t.refreshToken !== undefined,
        updatedAt: Number(r.updated),
      };
    });
  }

  /**
   * Single-flight refresh across replicas, without a pooled connection held across the network
   * call: a short transaction claims a lease on the entry (`refresh_lease`, `refreshing_until`)
   * if the tokens are still stale, nobody else holds it and the tenant has fewer than
   * `perTenant` refreshes in flight; the upstream is then called with no connection checked out,
   * and the result is written only if the lease is still ours (a relink in between wins).
   * Callers that find the entry leased poll (short queries, growing interval) until the holder's
   * fresh tokens appear, the holder gives up (transient: `unavailable`), or `waitMs` passes —
   * a rotating refresh token is redeemed once and a race never forces a relink. A refusal by the
   * upstream AS deletes the entry (relink needed); a transient failure keeps it. An expired lease
   * (its holder died) is taken over. Undefined tokens when there is no entry (any more).
   */
  async refreshOnce(
    tenantId: string,
    subject: string,
    connector: string,
    stale: (t: VaultedTokens) => boolean,
    refresh: (t: VaultedTokens) => Promise<RefreshOutcome>,
    /** Aborted when nobody waits for the answer any more (the caller hung up): waiting stops. */
    signal?: AbortSignal,
  ): Promise<{ tokens?: VaultedTokens; outcome: 'fresh' | 'refreshed' | 'refused' | 'unavailable' | 'missing' }> {
    const o = this.refreshOptions;
    const deadline = Date.now() + o.waitMs;
    let poll = o.pollMs;
    let sawLease = false;
    for (;;) {
      const claim = await this.claim(tenantId, subject, connector, stale, sawLease);
      if (claim.kind === 'missing') return { outcome: 'missing' };
      if (claim.kind === 'fresh') return { tokens: claim.tokens, outcome: 'fresh' };
      if (claim.kind === 'released') return { outcome: 'unavailable' };
      if (claim.kind === 'claimed') return this.refreshLeased(tenantId, subject, connector, claim, refresh);
      sawLease ||= claim.kind === 'busy';
      if (Date.now() + poll > deadline || signal?.aborted) return { outcome: 'unavailable' };
      o.onWait?.();
      await new Promise((resolve) => setTimeout(resolve, poll));
      poll = Math.min(MAX_POLL_MS, Math.ceil(poll * 1.5));
    }
  }

  /** One short transaction: read the entry and, when it needs a refresh and may have one, lease it. */
  private async claim(
    tenantId: string,
    subject: string,
    connector: string,
    stale: (t: VaultedTokens) => boolean,
    sawLease: boolean,
  ): Promise<Claim> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Claims of one tenant are serialised (a transaction-scoped advisory lock, held for a few statements) so the cap is exact.
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`vault-refresh:${this.table}:${tenantId}`]);
      const { rows } = await client.query<{ sealed: string; lease: string | null; leased: boolean }>(
        `SELECT sealed, refresh_lease AS lease, coalesce(refreshing_until > now(), false) AS leased FROM ${this.table} WHERE tenant_id = $1 AND subject = $2 AND connector = $3`,
        [tenantId, subject, connector],
      );
      const row = rows[0];
      let claim: Claim;
      if (!row) claim = { kind: 'missing' };
      else {
        const tokens = this.open(row.sealed, tenantId, subject, connector);
        if (!stale(tokens)) claim = { kind: 'fresh', tokens };
        else if (row.leased) claim = { kind: 'busy' };
        else if (sawLease && row.lease === null) claim = { kind: 'released' };
        else {
          const { rows: inFlight } = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM ${this.table} WHERE tenant_id = $1 AND refreshing_until > now()`,
            [tenantId],
          );
          if ((inFlight[0]?.n ?? 0) >= this.refreshOptions.perTenant) claim = { kind: 'full' };
          else {
            const lease = randomUUID();
            await client.query(
              `UPDATE ${this.table} SET refresh_lease = $4, refreshing_until = now() + make_interval(secs => $5) WHERE tenant_id = $1 AND subject = $2 AND connector = $3`,
              [tenantId, subject, connector, lease, this.refreshOptions.leaseS],
            );
            claim = { kind: 'claimed', tokens, lease };
          }
        }
      }
      await client.query('COMMIT');
      return claim;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Calls the upstream under our lease (no connection held), then writes the outcome if the lease is still ours. */
  private async refreshLeased(
    tenantId: string,
    subject: string,
    connector: string,
    claim: { tokens: VaultedTokens; lease: string },
    refresh: (t: VaultedTokens) => Promise<RefreshOutcome>,
  ): Promise<{ tokens?: VaultedTokens; outcome: 'refreshed' | 'refused' | 'unavailable' }> {
    const key = [tenantId, subject, connector, claim.lease];
    const mine = `tenant_id = $1 AND subject = $2 AND connector = $3 AND refresh_lease = $4`;
    let next: RefreshOutcome;
    try {
      next = claim.tokens.refreshToken ? await refresh(claim.tokens) : { kind: 'refused' };
    } catch (err) {
      await this.pool
        .query(`UPDATE ${this.table} SET refresh_lease = NULL, refreshing_until = NULL WHERE ${mine}`, key)
        .catch(() => undefined);
      throw err;
    }
    if (next.kind === 'ok') {
      await this.pool.query(
        `UPDATE ${this.table} SET sealed = $5, expires_at = CASE WHEN $6::bigint IS NULL THEN NULL ELSE to_timestamp($6::bigint) END, updated_at = now(), refresh_lease = NULL, refreshing_until = NULL WHERE ${mine}`,
        [...key, this.box.seal(JSON.stringify(next.tokens), this.aad(tenantId, subject, connector)), next.tokens.expiresAt ?? null],
      );
      return { tokens: next.tokens, outcome: 'refreshed' };
    }
    if (next.kind === 'refused') await this.pool.query(`DELETE FROM ${this.table} WHERE ${mine}`, key);
    else await this.pool.query(`UPDATE ${this.table} SET refresh_lease = NULL, refreshing_until = NULL WHERE ${mine}`, key);
    return { outcome: next.kind };
  }

  private open(sealed: string, tenantId: string, subject: string, connector: string): VaultedTokens {
    return JSON.parse(this.box.open(sealed, this.aad(tenantId, subject, connector))) as VaultedTokens;
  }

  private aad(tenantId: string, subject: string, connector: string): string {
    return `vault:${tenantId}:${subject}:${connector}`;
  }
}
