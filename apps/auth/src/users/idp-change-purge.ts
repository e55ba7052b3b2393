import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { SecretBox } from '@switchboard/secret-box';
import type { AuthTenant } from '../tenants/tenant-auth';
import type { VaultStore } from '../vault/vault-store';
import { callDirectory, type DirectoryTarget } from './directory-client';
import { currentIdentitySources, identitySourceOf } from './identity-sources';

/** Live link states read per purge (they live 10 minutes; more than this wait for the next purge of the tenant). */
const LINK_STATES_PER_PURGE = 1000;
/** Purge records reported per round, and how long one replica owns a record it is reporting. */
const REPORT_BATCH = 100;
const REPORT_LEASE_S = 60;
/** How often unreported purges and failed reconciliations are retried (the registry or Postgres was down). */
const RETRY_EVERY_MS = 60_000;
/** What the audit entry may list (identity-source ids and connector ids are short; the registry bounds them too). */
const MAX_LISTED = 64;

export interface IdpChangePurgeOptions {
  pool: Pool;
  schema: string;
  /** SECRETS_KEY: opens link states to read whose they are. */
  box: SecretBox;
  vault: VaultStore;
  tenants: { byId(id: string): AuthTenant | undefined };
  /** The registry (audit log); undefined ⇒ purges are only logged here and stay unreported. */
  directory: DirectoryTarget | undefined;
  /** Whether the any-name development login (`local`) is a source of directory tenants here. */
  devLogin: boolean;
  logger: Logger;
}

/** What one purge removed (counts and ids only, never token material). */
export interface IdpPurge {
  tenant: string;
  kept: string[];
  sources: string[];
  rows: number;
  connectors: string[];
  artefacts: number;
  linkStates: number;
}

interface PurgeRow {
  id: string;
  tenant_id: string;
  kept: string[];
  sources: string[];
  rows_purged: number;
  connectors: string[];
  artefacts: number;
  link_states: number;
  purged_at: Date;
}

/**
 * Keeps what is stored per subject in line with each tenant's identity sources (issue 41): when a
 * tenant's IdP changes (directory ⇄ enterprise IdP, issuer A → B, or the service leaves
 * development so the any-name login is gone), the vault rows (with their refresh leases), the
 * oidc-provider sessions, grants, codes and refresh tokens, and the pending account links of
 * subjects from the sources that are no longer the tenant's are deleted, so a later identity
 * with the same `sub` never inherits them. It runs on every tenant document the service learns
 * (the registry feed, at boot too), so a change made while auth was down is applied when it comes
 * back; the sources last reconciled are stored per tenant, so an unchanged document costs one
 * read. Each purge is recorded in the transaction that made it and reported to the registry's
 * audit log (`vault.purge-idp-change`), retried until the registry has it.
 */
export class IdpChangePurge {
  private readonly pending = new Set<string>();
  private readonly failed = new Set<string>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: IdpChangePurgeOptions) {}

  /** Starts the retry loop (unreported purges, failed reconciliations). */
  start(): void {
    this.timer = setInterval(() => {
      for (const id of this.failed) this.schedule(id);
      this.failed.clear();
      this.report().catch((err: unknown) => this.o.logger.warn({ err }, 'idp-change purge report failed; retried shortly'));
    }, RETRY_EVERY_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Queues a tenant's reconciliation: coalesced per tenant, one tenant at a time (a boot applies every tenant). */
  schedule(tenantId: string): void {
    this.pending.add(tenantId);
    this.running ??= this.drain();
  }

  /** Resolves when nothing is queued or running (tests wait on it after a document arrived). */
  async whenIdle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      for (let next = this.pending.values().next(); !next.done; next = this.pending.values().next()) {
        this.pending.delete(next.value);
        try {
          const done = await this.reconcile(next.value);
          if (done) await this.report();
        } catch (err) {
          this.failed.add(next.value);
          this.o.logger.warn({ err, tenant: next.value }, 'idp-change purge failed; retried shortly');
        }
      }
    } finally {
      // No await between the empty check and here: a schedule() from now on starts a new drain.
      this.running = undefined;
    }
  }

  /**
   * Purges what the tenant's former identity sources left, unless its sources are the ones it was
   * last reconciled against. Returns the purge when one was made (and recorded).
   */
  async reconcile(tenantId: string): Promise<IdpPurge | undefined> {
    const tenant = this.o.tenants.byId(tenantId);
    // A tenant without an authorization server (any more) has no sources to judge; the platform issuer has no subjects of this shape.
    if (!tenant || tenant.firstParty) return undefined;
    const kept = currentIdentitySources(tenant, this.o.devLogin);
    const client = await this.o.pool.connect();
    try {
      await client.query('BEGIN');
      // Replicas that learn the same document at once reconcile one after the other; the later one finds nothing to do.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`idp-purge:${this.o.schema}:${tenant.id}`]);
      const { rows } = await client.query<{ sources: string }>(
        `SELECT sources FROM "${this.o.schema}".tenant_identity_sources WHERE tenant_id = $1`,
        [tenant.id],
      );
      if (rows[0]?.sources === kept.join(' ')) {
        await client.query('COMMIT');
        return undefined;
      }
      const purge = await this.purge(client, tenant.id, kept);
      await client.query(
        `INSERT INTO "${this.o.schema}".tenant_identity_sources (tenant_id, sources) VALUES ($1, $2)
         ON CONFLICT (tenant_id) DO UPDATE SET sources = EXCLUDED.sources, reconciled_at = now()`,
        [tenant.id, kept.join(' ')],
      );
      await client.query('COMMIT');
      if (purge) {
        this.o.logger.warn(
          {
            event: 'vault.purge-idp-change',
            tenant: tenant.id,
            kept,
            sources: purge.sources,
            rows: purge.rows,
            connectors: purge.connectors,
            artefacts: purge.artefacts,
            linkStates: purge.linkStates,
          },
          "the tenant's identity provider changed: what former identities left stored was purged; those users link their accounts again",
        );
      }
      return purge;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Deletes, in the caller's transaction, everything stored for subjects outside `kept`; records the purge when anything went. */
  private async purge(client: PoolClient, tenantId: string, kept: string[]): Promise<IdpPurge | undefined> {
    const schema = this.o.schema;
    const vault = await this.o.vault.deleteOtherSources(tenantId, kept, client);
    // Upstream tokens obtained from a former identity's enterprise grant go too (a cache: not counted in the purge record).
    await client.query(
      `DELETE FROM "${schema}".grant_token WHERE tenant_id = $1 AND starts_with(subject, $1 || '|') AND split_part(subject, '|', 2) <> ALL($2::text[])`,
      [tenantId, kept],
    );
    // oidc-provider artefacts name their account in clear (`accountId`); what hangs off a removed grant goes with it.
    const gone = await client.query<{ n: number; grants: string[]; sources: string[] }>(
      `WITH gone AS (
         DELETE FROM "${schema}".oidc_model
          WHERE tenant_id = $1 AND model <> 'Client' AND starts_with(payload->>'accountId', $1 || '|') AND split_part(payload->>'accountId', '|', 2) <> ALL($2::text[])
         RETURNING grant_id, split_part(payload->>'accountId', '|', 2) AS source
       )
       SELECT count(*)::int AS n, coalesce(array_agg(DISTINCT grant_id) FILTER (WHERE grant_id IS NOT NULL), '{}') AS grants, coalesce(jsonb_agg(DISTINCT source), '[]') AS sources FROM gone`,
      [tenantId, kept],
    );
    let artefacts = gone.rows[0]?.n ?? 0;
    const grants = gone.rows[0]?.grants ?? [];
    if (grants.length > 0) {
      const linked = await client.query(
        `DELETE FROM "${schema}".oidc_model WHERE tenant_id = $1 AND model <> 'Client' AND grant_id = ANY($2::text[])`,
        [tenantId, grants],
      );
      artefacts += linked.rowCount ?? 0;
    }
    const linkStates = await this.purgeLinkStates(client, tenantId, kept);
    const sources = [...new Set([...vault.sources, ...(gone.rows[0]?.sources ?? []), ...linkStates.sources])].sort();
    if (vault.rows + artefacts + linkStates.count === 0) return undefined;
    const purge: IdpPurge = {
      tenant: tenantId,
      kept,
      sources,
      rows: vault.rows,
      connectors: vault.connectors,
      artefacts,
      linkStates: linkStates.count,
    };
    await client.query(
      `INSERT INTO "${schema}".vault_idp_purge (tenant_id, kept, sources, rows_purged, connectors, artefacts, link_states) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        tenantId,
        JSON.stringify(kept),
        JSON.stringify(sources.slice(0, MAX_LISTED)),
        vault.rows,
        JSON.stringify(vault.connectors.slice(0, MAX_LISTED)),
        artefacts,
        linkStates.count,
      ],
    );
    return purge;
  }

  /**
   * Deletes everything stored for one subject (a directory user deprovisioned by SCIM): its vault
   * rows, and its oidc-provider sessions, grants, codes and refresh tokens with what hangs off
   * those grants — the same deletions an IdP change makes, narrowed to one account id.
   */
  async revokeSubject(tenantId: string, subject: string): Promise<{ vaultRows: number; artefacts: number }> {
    const schema = this.o.schema;
    const client = await this.o.pool.connect();
    try {
      await client.query('BEGIN');
      const vault = await client.query(`DELETE FROM "${schema}".vault_token WHERE tenant_id = $1 AND subject = $2`, [tenantId, subject]);
      const gone = await client.query<{ grant_id: string | null }>(
        `DELETE FROM "${schema}".oidc_model WHERE tenant_id = $1 AND model <> 'Client' AND payload->>'accountId' = $2 RETURNING grant_id`,
        [tenantId, subject],
      );
      let artefacts = gone.rowCount ?? 0;
      const grants = [...new Set(gone.rows.map((r) => r.grant_id).filter((g): g is string => g !== null))];
      if (grants.length > 0) {
        const linked = await client.query(
          `DELETE FROM "${schema}".oidc_model WHERE tenant_id = $1 AND model <> 'Client' AND grant_id = ANY($2::text[])`,
          [tenantId, grants],
        );
        artefacts += linked.rowCount ?? 0;
      }
      await client.query('COMMIT');
      return { vaultRows: vault.rowCount ?? 0, artefacts };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Pending account links of former identities (sealed, so each is opened to see whose it is):
   * a link started before the change must not complete into the vault after the purge.
   */
  private async purgeLinkStates(client: PoolClient, tenantId: string, kept: string[]): Promise<{ count: number; sources: string[] }> {
    const table = `"${this.o.schema}".federation_state`;
    const { rows } = await client.query<{ state_hash: string; data: string }>(
      `SELECT state_hash, data FROM ${table} WHERE tenant_id = $1 AND purpose = 'link' AND expires_at > now() LIMIT ${LINK_STATES_PER_PURGE}`,
      [tenantId],
    );
    const stale: string[] = [];
    const sources = new Set<string>();
    for (const r of rows) {
      let subject: unknown;
      try {
        subject = (JSON.parse(this.o.box.open(r.data, `federation:${tenantId}:link`)) as { subject?: unknown }).subject;
      } catch {
        continue; // not a link state (a consumed-ticket marker) or not ours to read
      }
      if (typeof subject !== 'string' || !subject.startsWith(`${tenantId}|`)) continue;
      const source = identitySourceOf(tenantId, subject) ?? '';
      if (kept.includes(source)) continue;
      stale.push(r.state_hash);
      sources.add(source);
    }
    if (stale.length === 0) return { count: 0, sources: [] };
    const { rowCount } = await client.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND state_hash = ANY($2::text[])`, [
      tenantId,
      stale,
    ]);
    return { count: rowCount ?? 0, sources: [...sources] };
  }

  /**
   * Reports recorded purges to the registry's audit log, each by one replica (a short lease),
   * and marks them reported. While the registry cannot be reached or refuses they stay and are
   * retried; a tenant the registry does not know (a file-served one) has no audit log there and is marked.
   */
  async report(): Promise<number> {
    const target = this.o.directory;
    if (!target) return 0;
    const table = `"${this.o.schema}".vault_idp_purge`;
    const { rows } = await this.o.pool.query<PurgeRow>(
      `UPDATE ${table} SET report_until = now() + make_interval(secs => $1)
        WHERE id IN (SELECT id FROM ${table} WHERE audited_at IS NULL AND (report_until IS NULL OR report_until < now()) ORDER BY id LIMIT ${REPORT_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING id, tenant_id, kept, sources, rows_purged, connectors, artefacts, link_states, purged_at`,
      [REPORT_LEASE_S],
    );
    let reported = 0;
    for (const r of rows.sort((a, b) => Number(a.id) - Number(b.id))) {
      const answer = await callDirectory(target, 'audit-vault-purge', {
        tenant: r.tenant_id,
        reason: 'idp-change',
        rows: r.rows_purged,
        connectors: r.connectors,
        sources: r.sources,
        kept: r.kept,
        artefacts: r.artefacts,
        linkStates: r.link_states,
        purgedAt: r.purged_at.toISOString(),
      });
      // 404: a tenant the registry does not know. Any other refusal (a registry older than this
      // report) keeps the record for a later try rather than losing the audit entry.
      if (answer.outcome === 'unavailable' || (answer.outcome === 'refused' && answer.status !== 404)) {
        const reason = answer.outcome === 'unavailable' ? answer.reason : `registry answered ${answer.status}`;
        this.o.logger.warn({ tenant: r.tenant_id, reason }, 'idp-change purge not yet audited at the registry; retried shortly');
        await this.o.pool.query(`UPDATE ${table} SET report_until = NULL WHERE id = $1`, [r.id]);
        continue;
      }
      await this.o.pool.query(`UPDATE ${table} SET audited_at = now(), report_until = NULL WHERE id = $1`, [r.id]);
      reported += 1;
    }
    return reported;
  }
}
