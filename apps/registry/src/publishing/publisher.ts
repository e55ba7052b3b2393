import { writeSync } from 'node:fs';
import type { CatalogSnapshot, ToolEntry } from '@switchboard/catalog';
import { isCluster, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import { gatewayCredentialAad, type SecretBox } from '@switchboard/secret-box';
import type { Database, Queryable } from '../db/database';
import { audit } from '../model/audit';
import type { Credentials } from '../credentials/credentials';
import type { ServerRow } from '../model/server-row';
import { loadTenant, type TenantRow } from '../model/tenant-row';
import { buildSnapshot } from './build-snapshot';
import { buildTenantDocument, catalogRedisKeys, type PublishedCatalog } from '@switchboard/catalog';
import { tenantDocumentSettings } from '../model/tenant-document-settings';
import type { CrashStep } from './crash-steps';
import { emitWebhookEvent } from '../model/webhook-events';

/** Thrown inside a draft's transaction so the database rolls every change of it back. */
const DRAFT_ROLLBACK = Symbol('draft rollback');

/** One publisher at a time per tenant (transaction-scoped), so retired names and versions stay consistent. */
export async function lockTenant(q: Queryable, tenantId: string): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry-publish:${tenantId}`]);
}

export interface PublishResult {
  version: string;
  tools: number;
  /** `unavailable`: committed in Postgres; gateways pick it up from the internal API / next sync. */
  redis: 'ok' | 'unavailable';
}

/**
 * The publication path (ARCHITECTURE §2): compile an immutable snapshot → Postgres (source
 * of truth) → Redis (`sb:catalog:<tenant>`, `sb:tenants`) → PUBLISH `catalog:changed`.
 */
export class Publisher {
  private readonly keys: ReturnType<typeof catalogRedisKeys>;

  constructor(
    private readonly db: Database,
    private readonly redis: RedisClient,
    namespace: string,
    private readonly credentials: Credentials,
    private readonly box: SecretBox,
    private readonly graceSeconds: number,
    private readonly logger: Logger,
    private readonly options: { crashAt?: CrashStep } = {},
  ) {
    this.keys = catalogRedisKeys(namespace);
  }

  /**
   * Publishes the tenant's current publications. `apply` (e.g. applyPublication) runs first in
   * the same transaction, so the publication rows and the snapshot built from them commit
   * together or not at all; the tenant's outbox row (written by triggers on every change a
   * snapshot is built from) is deleted in that transaction too. The Redis push follows the
   * commit; if the process dies before it, boot reconciliation re-pushes every tenant.
   */
  async publish(tenantId: string, actor: string, reason: string): Promise<PublishResult>;
  async publish<T>(
    tenantId: string,
    actor: string,
    reason: string,
    apply: (q: Queryable) => Promise<T>,
  ): Promise<PublishResult & { applied: T }>;
  async publish<T>(
    tenantId: string,
    actor: string,
    reason: string,
    apply?: (q: Queryable) => Promise<T>,
  ): Promise<PublishResult & { applied?: T }> {
    this.crashAt('before-publish');
    const { snapshot, applied } = await this.db.tx(async (q) => {
      await lockTenant(q, tenantId);
      const applied = apply ? await apply(q) : undefined;
      this.crashAt('after-rows');
      const { tenant, snapshot } = await this.compile(q, tenantId);
      await q.query('INSERT INTO registry.snapshots (tenant_id, version, snapshot) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        tenantId,
        snapshot.version,
        JSON.stringify(snapshot),
      ]);
      this.crashAt('after-snapshot');
      await q.query('UPDATE registry.tenants SET current_version = $2, updated_at = now() WHERE id = $1', [tenantId, snapshot.version]);
      await q.query('DELETE FROM registry.publish_outbox WHERE tenant_id = $1', [tenantId]);
      await audit(q, tenantId, actor, 'snapshot.publish', snapshot.version, {
        reason,
        tools: snapshot.tools.length,
        previous: tenant.current_version,
      });
      await emitWebhookEvent(q, tenantId, 'publish.done', {
        version: snapshot.version,
        previous: tenant.current_version,
        tools: snapshot.tools.length,
        reason,
        actor,
      });
      return { snapshot, applied };
    });
    this.crashAt('after-commit');
    const redis = await this.push(tenantId);
    this.crashAt('after-push');
    return { version: snapshot.version, tools: snapshot.tools.length, redis, ...(apply ? { applied } : {}) };
  }

  /**
   * Finishes publications a crashed process left behind: every tenant with an outbox row (older
   * than `minAgeMs`, so a request still between its two transactions is not raced) is compiled;
   * a changed snapshot is published (audited as `system`), an unchanged one just clears the row.
   * Returns the tenants whose snapshot changed.
   */
  async finishPending(minAgeMs: number): Promise<string[]> {
    const rows = await this.db.query<{ tenant_id: string; source: string }>(
      'SELECT tenant_id, source FROM registry.publish_outbox WHERE requested_at <= now() - make_interval(secs => $1) ORDER BY requested_at',
      [minAgeMs / 1000],
    );
    const published: string[] = [];
    for (const { tenant_id: tenantId, source } of rows) {
      try {
        const changed = await this.db.tx(async (q) => {
          await lockTenant(q, tenantId);
          const tenant = await loadTenant(q, tenantId);
          const pubs = await q.query('SELECT 1 FROM registry.publications WHERE tenant_id = $1 LIMIT 1', [tenantId]);
          if (!tenant.current_version && pubs.length === 0) {
            // Never published and nothing to publish (e.g. settings of a new tenant): nothing pending.
            await q.query('DELETE FROM registry.publish_outbox WHERE tenant_id = $1', [tenantId]);
            return false;
          }
          const { snapshot } = await this.compile(q, tenantId);
          if (snapshot.version === tenant.current_version) {
            await q.query('DELETE FROM registry.publish_outbox WHERE tenant_id = $1', [tenantId]);
            return false;
          }
          return true;
        });
        if (changed) {
          const result = await this.publish(tenantId, 'system', `reconciliation: unfinished ${source} change`);
          this.logger.warn({ tenant: tenantId, source, version: result.version }, 'finished a publication left half-done (outbox)');
          published.push(tenantId);
        }
      } catch (err) {
        // A catalog that no longer compiles stays pending (the next publish reports the 409); others go on.
        this.logger.warn({ tenant: tenantId, err: (err as Error).message }, 'could not finish a pending publication');
      }
    }
    return published;
  }

  /** Test-only fault injection (`REGISTRY_CRASH_AT`): dies at the named step as `kill -9` would. */
  private crashAt(step: CrashStep): void {
    if (this.options.crashAt !== step) return;
    // Written synchronously: the logger's buffer would die with the process.
    writeSync(2, `REGISTRY_CRASH_AT: killing the process at ${step}\n`);
    process.kill(process.pid, 'SIGKILL');
  }

  /**
   * What `publish` would compile if `apply` (a change to the publications, e.g. applyPublication)
   * were committed now: the same lock, name retirement and snapshot build as `publish`, inside a
   * transaction that is always rolled back, so nothing is written, nothing is pushed, and the
   * answer cannot drift from what publishing produces. Errors thrown by `apply` or by the
   * compile (409 when the catalog does not compile) pass through unchanged.
   */
  async draft<T>(
    tenantId: string,
    apply: (q: Queryable) => Promise<T>,
  ): Promise<{ tenant: TenantRow; snapshot: CatalogSnapshot; applied: T }> {
    let out: { tenant: TenantRow; snapshot: CatalogSnapshot; applied: T } | undefined;
    try {
      await this.db.tx(async (q) => {
        await lockTenant(q, tenantId);
        const applied = await apply(q);
        out = { ...(await this.compile(q, tenantId)), applied };
        throw DRAFT_ROLLBACK;
      });
    } catch (err) {
      if (err !== DRAFT_ROLLBACK) throw err;
    }
    if (!out) throw new Error('draft compiled nothing');
    return out;
  }

  /** The snapshot the tenant's current publications compile to (retiring dropped names first), within `q`'s transaction. */
  private async compile(q: Queryable, tenantId: string): Promise<{ tenant: TenantRow; snapshot: CatalogSnapshot }> {
    const tenant = await loadTenant(q, tenantId);
    await this.retireNames(q, tenant);
    const { snapshot } = await buildSnapshot(q, tenant);
    return { tenant, snapshot };
  }

  /** The catalog a gateway loads for a tenant (current snapshot + sealed credentials), or undefined before the first publish. */
  async catalogFor(tenantId: string): Promise<PublishedCatalog | undefined> {
    const tenant = await loadTenant(this.db, tenantId);
    if (!tenant.current_version) return undefined;
    const rows = await this.db.query<{ snapshot: CatalogSnapshot }>(
      'SELECT snapshot FROM registry.snapshots WHERE tenant_id = $1 AND version = $2',
      [tenantId, tenant.current_version],
    );
    const snapshot = rows[0]?.snapshot;
    if (!snapshot) return undefined;
    const serverIds = new Set<string>();
    for (const list of [snapshot.tools, snapshot.prompts, snapshot.resources, snapshot.resourceTemplates]) {
      for (const e of list) if (e.route.kind === 'upstream') serverIds.add(e.route.serverId);
    }
    const servers = await this.db.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1 AND id = ANY($2)', [
      tenantId,
      [...serverIds],
    ]);
    const credentials: Record<string, string> = {};
    for (const server of servers) {
      try {
        const headers = await this.credentials.headers(server);
        if (Object.keys(headers).length > 0)
          credentials[server.id] = this.box.seal(JSON.stringify({ headers }), gatewayCredentialAad(tenantId, server.id));
      } catch (err) {
        // The catalog still ships; calls to this server fail upstream with an auth error until the credential works.
        this.logger.warn({ tenant: tenantId, server: server.id, err: (err as Error).message }, 'server credential unavailable');
      }
    }
    // The tenant document: settings (profile, edge policy, auth, limits) + this snapshot, through the one builder.
    return buildTenantDocument(await tenantDocumentSettings(this.db, tenant), snapshot, credentials);
  }

  /**
   * Writes the tenant's current catalog to Redis and announces it; never throws for Redis trouble.
   * Pushes of one tenant run one after the other and each reads Postgres afresh, so a slow push
   * of an older version can never land after a newer one (within this process; across replicas
   * the periodic verification repairs the rare interleaving).
   */
  async push(tenantId: string): Promise<'ok' | 'unavailable'> {
    const previous = this.pushing.get(tenantId) ?? Promise.resolve();
    const mine = previous.then(() => this.pushNow(tenantId));
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.pushing.set(tenantId, settled);
    void settled.then(() => {
      if (this.pushing.get(tenantId) === settled) this.pushing.delete(tenantId);
    });
    return mine;
  }

  private readonly pushing = new Map<string, Promise<void>>();

  private async pushNow(tenantId: string): Promise<'ok' | 'unavailable'> {
    const catalog = await this.catalogFor(tenantId);
    try {
      if (isCluster(this.redis)) return await this.pushToCluster(tenantId, catalog);
      if (!catalog) {
        await this.redis.multi().del(this.keys.catalog(tenantId)).srem(this.keys.tenants, tenantId).exec();
        return 'ok';
      }
      const message = JSON.stringify({ tenantId, version: catalog.snapshot.version });
      const res = await this.redis
        .multi()
        .set(this.keys.catalog(tenantId), JSON.stringify(catalog))
        .sadd(this.keys.tenants, tenantId)
        .publish(this.keys.channel, message)
        .exec();
      const failed = res?.find(([err]) => err);
      if (failed) throw failed[0];
      return 'ok';
    } catch (err) {
      this.logger.warn({ tenant: tenantId, err: (err as Error).message }, 'Redis unavailable; snapshot committed in Postgres only');
      return 'unavailable';
    }
  }

  /**
   * The same writes on a Redis Cluster, which refuses a MULTI whose keys span slots (the
   * tenant's key and the tenant set hash apart): write, list, then announce, in that order, so
   * a gateway told of a change finds it. A crash in between leaves at most an unlisted or
   * unannounced key, which the reconciler's verification and the gateways' re-sync repair.
   */
  private async pushToCluster(tenantId: string, catalog: PublishedCatalog | undefined): Promise<'ok'> {
    if (!catalog) {
      await this.redis.del(this.keys.catalog(tenantId));
      await this.redis.srem(this.keys.tenants, tenantId);
      return 'ok';
    }
    await this.redis.set(this.keys.catalog(tenantId), JSON.stringify(catalog));
    await this.redis.sadd(this.keys.tenants, tenantId);
    await this.redis.publish(this.keys.channel, JSON.stringify({ tenantId, version: catalog.snapshot.version }));
    return 'ok';
  }

  /** Re-pushes every published tenant (boot and every Redis (re)connect: Redis may have been flushed or missed a publish). */
  async syncAll(): Promise<{ tenants: number; unavailable: number }> {
    const rows = await this.db.query<{ id: string }>('SELECT id FROM registry.tenants WHERE current_version IS NOT NULL ORDER BY id');
    let unavailable = 0;
    for (const { id } of rows) if ((await this.push(id)) === 'unavailable') unavailable++;
    return { tenants: rows.length, unavailable };
  }

  /** Published tenants and their current versions in Postgres (the source of truth the verification compares Redis with). */
  async currentVersions(): Promise<Map<string, string>> {
    const rows = await this.db.query<{ id: string; current_version: string }>(
      'SELECT id, current_version FROM registry.tenants WHERE current_version IS NOT NULL',
    );
    return new Map(rows.map((r) => [r.id, r.current_version]));
  }

  /** Drops expired grace-period names and republishes those tenants (maintenance job); the delete commits with the new snapshot. */
  async expireRetired(): Promise<string[]> {
    const rows = await this.db.query<{ tenant_id: string }>(
      'SELECT DISTINCT tenant_id FROM registry.retired_names WHERE expires_at <= now()',
    );
    const tenants = rows.map((r) => r.tenant_id);
    for (const t of tenants) {
      await this.publish(t, 'system', 'grace period ended', (q) =>
        q.query('DELETE FROM registry.retired_names WHERE tenant_id = $1 AND expires_at <= now()', [t]),
      );
    }
    return tenants;
  }

  /**
   * Tools of the previous snapshot that this publication drops or renames keep answering
   * under their old name for the grace period (clients cache lists for hours).
   */
  private async retireNames(q: Queryable, tenant: TenantRow): Promise<void> {
    const pubs = await q.query<{ server_id: string; key: string; exposed_name: string }>(
      "SELECT server_id, key, exposed_name FROM registry.publications WHERE tenant_id = $1 AND kind = 'tool'",
      [tenant.id],
    );
    const live = new Set(pubs.map((p) => p.exposed_name));
    await q.query('DELETE FROM registry.retired_names WHERE tenant_id = $1 AND exposed_name = ANY($2)', [tenant.id, [...live]]);
    if (!tenant.current_version || this.graceSeconds === 0) return;
    const prev = await q.query<{ snapshot: CatalogSnapshot }>(
      'SELECT snapshot FROM registry.snapshots WHERE tenant_id = $1 AND version = $2',
      [tenant.id, tenant.current_version],
    );
    for (const entry of prev[0]?.snapshot.tools ?? []) {
      const name = entry.definition.name;
      // A grace-period entry (unlisted; or marked deprecated by older snapshots) is already retired: its clock keeps running.
      if (
        live.has(name) ||
        entry.route.kind !== 'upstream' ||
        entry.unlisted === true ||
        entry.definition._meta?.['switchboard/deprecated'] !== undefined
      )
        continue;
      const route = entry.route;
      const successor = pubs.find((p) => p.server_id === route.serverId && p.key === route.upstreamName)?.exposed_name ?? null;
      const stored: ToolEntry = { definition: entry.definition, route };
      await q.query(
        `INSERT INTO registry.retired_names (tenant_id, exposed_name, server_id, entry, replaced_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)) ON CONFLICT (tenant_id, exposed_name) DO NOTHING`,
        [tenant.id, name, route.serverId, JSON.stringify(stored), successor, this.graceSeconds],
      );
    }
  }
}
