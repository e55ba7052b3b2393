import type { CatalogSnapshot, ToolEntry } from '@switchboard/catalog';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { gatewayCredentialAad, type SecretBox } from '@switchboard/secret-box';
import type { Database, Queryable } from '../db/database';
import { audit } from '../tenants/audit';
import type { Credentials } from '../servers/credentials';
import type { ServerRow } from '../servers/server-row';
import { buildSnapshot, loadTenant, type TenantRow } from './build-snapshot';
import { buildTenantDocument, catalogRedisKeys, type PublishedCatalog } from '@switchboard/catalog';
import { tenantDocumentSettings } from '../tenant-auth/tenant-document-settings';

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
    private readonly redis: Redis,
    namespace: string,
    private readonly credentials: Credentials,
    private readonly box: SecretBox,
    private readonly graceSeconds: number,
    private readonly logger: Logger,
  ) {
    this.keys = catalogRedisKeys(namespace);
  }

  async publish(tenantId: string, actor: string, reason: string): Promise<PublishResult> {
    const snapshot = await this.db.tx(async (q) => {
      await lockTenant(q, tenantId);
      const { tenant, snapshot } = await this.compile(q, tenantId);
      await q.query('INSERT INTO registry.snapshots (tenant_id, version, snapshot) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [tenantId, snapshot.version, JSON.stringify(snapshot)]);
      await q.query('UPDATE registry.tenants SET current_version = $2, updated_at = now() WHERE id = $1', [tenantId, snapshot.version]);
      await audit(q, tenantId, actor, 'snapshot.publish', snapshot.version, { reason, tools: snapshot.tools.length, previous: tenant.current_version });
      return snapshot;
    });
    const redis = await this.push(tenantId);
    return { version: snapshot.version, tools: snapshot.tools.length, redis };
  }

  /**
   * What `publish` would compile if `apply` (a change to the publications, e.g. applyPublication)
   * were committed now: the same lock, name retirement and snapshot build as `publish`, inside a
   * transaction that is always rolled back, so nothing is written, nothing is pushed, and the
   * answer cannot drift from what publishing produces. Errors thrown by `apply` or by the
   * compile (409 when the catalog does not compile) pass through unchanged.
   */
  async draft<T>(tenantId: string, apply: (q: Queryable) => Promise<T>): Promise<{ tenant: TenantRow; snapshot: CatalogSnapshot; applied: T }> {
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
    const rows = await this.db.query<{ snapshot: CatalogSnapshot }>('SELECT snapshot FROM registry.snapshots WHERE tenant_id = $1 AND version = $2', [tenantId, tenant.current_version]);
    const snapshot = rows[0]?.snapshot;
    if (!snapshot) return undefined;
    const serverIds = new Set<string>();
    for (const list of [snapshot.tools, snapshot.prompts, snapshot.resources, snapshot.resourceTemplates]) {
      for (const e of list) if (e.route.kind === 'upstream') serverIds.add(e.route.serverId);
    }
    const servers = await this.db.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1 AND id = ANY($2)', [tenantId, [...serverIds]]);
    const credentials: Record<string, string> = {};
    for (const server of servers) {
      try {
        const headers = await this.credentials.headers(server);
        if (Object.keys(headers).length > 0) credentials[server.id] = this.box.seal(JSON.stringify({ headers }), gatewayCredentialAad(tenantId, server.id));
      } catch (err) {
        // The catalog still ships; calls to this server fail upstream with an auth error until the credential works.
        this.logger.warn({ tenant: tenantId, server: server.id, err: (err as Error).message }, 'server credential unavailable');
      }
    }
    // The tenant document: settings (profile, edge policy, auth, limits) + this snapshot, through the one builder.
    return buildTenantDocument(await tenantDocumentSettings(this.db, tenant), snapshot, credentials);
  }

  /** Writes the tenant's current catalog to Redis and announces it; never throws for Redis trouble. */
  async push(tenantId: string): Promise<'ok' | 'unavailable'> {
    const catalog = await this.catalogFor(tenantId);
    try {
      if (!catalog) {
        await this.redis.multi().del(this.keys.catalog(tenantId)).srem(this.keys.tenants, tenantId).exec();
        return 'ok';
      }
      const message = JSON.stringify({ tenantId, version: catalog.snapshot.version });
      const res = await this.redis.multi().set(this.keys.catalog(tenantId), JSON.stringify(catalog)).sadd(this.keys.tenants, tenantId).publish(this.keys.channel, message).exec();
      const failed = res?.find(([err]) => err);
      if (failed) throw failed[0];
      return 'ok';
    } catch (err) {
      this.logger.warn({ tenant: tenantId, err: (err as Error).message }, 'Redis unavailable; snapshot committed in Postgres only');
      return 'unavailable';
    }
  }

  /** Re-pushes every published tenant (boot: Redis may have been flushed or missed a publish). */
  async syncAll(): Promise<number> {
    const rows = await this.db.query<{ id: string }>('SELECT id FROM registry.tenants WHERE current_version IS NOT NULL');
    for (const { id } of rows) await this.push(id);
    return rows.length;
  }

  /** Drops expired grace-period names and republishes those tenants (maintenance job). */
  async expireRetired(): Promise<string[]> {
    const rows = await this.db.query<{ tenant_id: string }>('DELETE FROM registry.retired_names WHERE expires_at <= now() RETURNING tenant_id');
    const tenants = [...new Set(rows.map((r) => r.tenant_id))];
    for (const t of tenants) await this.publish(t, 'system', 'grace period ended');
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
    const prev = await q.query<{ snapshot: CatalogSnapshot }>('SELECT snapshot FROM registry.snapshots WHERE tenant_id = $1 AND version = $2', [tenant.id, tenant.current_version]);
    for (const entry of prev[0]?.snapshot.tools ?? []) {
      const name = entry.definition.name;
      // A grace-period entry (unlisted; or marked deprecated by older snapshots) is already retired: its clock keeps running.
      if (live.has(name) || entry.route.kind !== 'upstream' || entry.unlisted === true || entry.definition._meta?.['switchboard/deprecated'] !== undefined) continue;
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
