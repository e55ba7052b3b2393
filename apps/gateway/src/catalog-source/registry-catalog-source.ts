import { SecretBox } from '@switchboard/secret-box';
import type { LocalBundle, PublishedCatalog } from '@switchboard/catalog';
import { metrics, type Counter } from '@opentelemetry/api';
import { CatalogFeedReader } from '@switchboard/tenant-config';
import type { Logger } from 'pino';
import type { CatalogSource, TenantCatalog } from './catalog-source';
import { openTenantDocument, type OpenedDocument } from './open-tenant-document';

export interface RegistryCatalogSourceOptions {
  /** Redis holding `sb:catalog:<tenant>`, `sb:tenants` and the `catalog:changed` channel. */
  redisUrl?: string;
  /** Prefix of those keys and the channel (tests isolate with it); default none. */
  namespace?: string;
  /** Registry base URL for `GET /internal/catalogs` when Redis misses. */
  registryUrl?: string;
  internalToken?: string;
  /** The shared SECRETS_KEY's keys (newest first) that open the sealed upstream credentials. */
  secretsKey: Buffer | Buffer[];
  /** Full re-sync interval (catches messages missed while disconnected), in ms. */
  resyncMs?: number;
  logger: Logger;
}

/**
 * Catalogs published by the registry: loaded from Redis (falling back to the registry's
 * internal API when Redis misses or is down), updated on `catalog:changed`, and re-synced
 * periodically. Upstream credentials arrive sealed (AES-256-GCM) and are opened here into
 * the routes' headers. When Redis and the registry are both down, the last good catalogs
 * keep being served: nothing is ever dropped because a fetch failed.
 */
export class RegistryCatalogSource implements CatalogSource {
  readonly bundles: readonly LocalBundle[] = [];
  private readonly current = new Map<string, OpenedDocument>();
  /** `gateway_catalog_reconciled_total{kind,reason}`: tenants fetched from the registry because Redis lacked them or held another version. */
  private readonly reconciled: Counter = metrics.getMeter('switchboard').createCounter('gateway.catalog.reconciled', {
    description: 'Tenant catalogs repaired from the registry by reconciliation, by kind (missing, stale)',
  });
  private readonly listeners = new Set<(tenant: TenantCatalog) => void>();
  private readonly reader: CatalogFeedReader;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly box: SecretBox;

  constructor(private readonly options: RegistryCatalogSourceOptions) {
    this.box = new SecretBox(options.secretsKey);
    this.reader = new CatalogFeedReader({ ...options, warn: (message, details) => options.logger.warn(details, message) });
  }

  async load(): Promise<TenantCatalog[]> {
    // Every (re)connection re-subscribes and re-syncs, so a message missed while disconnected is caught up.
    await this.reader.start(
      (tenantId) => void this.onChanged(tenantId),
      () => void this.resync(true, 'reconnect'),
    );
    await this.resync(false, 'boot');
    const every = this.options.resyncMs ?? 30_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.resync(), every);
      this.timer.unref();
    }
    return [...this.current.values()].map((c) => c.catalog);
  }

  subscribe(listener: (tenant: TenantCatalog) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.reader.close();
  }

  private async onChanged(tenantId: string): Promise<void> {
    const raw = (await this.fromRedis([tenantId]))?.[0] ?? (await this.fromRegistry(tenantId))?.[0];
    if (raw) this.accept(raw, true);
  }

  /**
   * Loads everything (Redis first) and reconciles it against the registry: the registry's
   * `GET /internal/catalog-versions` lists every published tenant with its version, and any
   * tenant that Redis lacks or holds at another version is fetched from the registry. Runs at
   * boot, on every Redis (re)connect and every `resyncMs`; what it repaired is logged and counted.
   */
  private async resync(notify = true, reason: 'boot' | 'reconnect' | 'periodic' = 'periodic'): Promise<void> {
    if (this.closed) return;
    const ids = await this.redisTenantIds();
    const found = ids !== undefined ? ((await this.fromRedis(ids)) ?? []) : [];
    const versions = await this.registryVersions();
    let all: PublishedCatalog[] | undefined;
    if (versions) {
      const byId = new Map(found.map((c) => [c.id, c] as const));
      const repair: string[] = [];
      for (const [id, version] of versions) {
        const held = byId.get(id) ?? this.currentRaw(id);
        if (held?.snapshot?.version !== version) repair.push(id);
      }
      all = [...found];
      if (repair.length > 0) {
        // Many misses (a flushed Redis): one bulk call; a few: one call each.
        const fetched =
          repair.length > 20
            ? ((await this.fromRegistry()) ?? []).filter((c) => repair.includes(c.id))
            : (await Promise.all(repair.map((id) => this.fromRegistry(id)))).flatMap((c) => c ?? []);
        const repaired = fetched.filter((c) => this.current.get(c.id)?.version !== c.snapshot?.version);
        all = [...found.filter((c) => !repair.includes(c.id)), ...fetched];
        if (repaired.length > 0) {
          const missing = repaired.filter((c) => !this.current.has(c.id)).length;
          this.reconciled.add(missing, { kind: 'missing', reason });
          this.reconciled.add(repaired.length - missing, { kind: 'stale', reason });
          this.options.logger.warn(
            {
              reason,
              tenants: repaired.map((c) => c.id).slice(0, 50),
              missing,
              stale: repaired.length - missing,
              redisHad: found.length,
              registryHas: versions.size,
            },
            'tenant catalogs reconciled from the registry (Redis lacked or held another version)',
          );
        }
      }
    } else if (ids !== undefined) {
      all = found;
      if (found.length < ids.length || ids.length === 0) {
        // Registry versions unavailable and Redis misses: try the bulk call (it may answer while the versions call did not).
        const more = await this.fromRegistry();
        if (more) all = [...found, ...more.filter((c) => !found.some((f) => f.id === c.id))];
      }
    } else {
      all = await this.fromRegistry();
    }
    if (!all) return; // both down: keep serving the last good catalogs
    for (const raw of all) this.accept(raw, notify);
  }

  /** The raw document last accepted for a tenant (its version decides whether a fetch is needed). */
  private currentRaw(id: string): { snapshot?: { version?: string } } | undefined {
    const c = this.current.get(id);
    return c ? { snapshot: { version: c.version } } : undefined;
  }

  private accept(received: PublishedCatalog, notify: boolean): void {
    try {
      const opened = openTenantDocument(received, this.box);
      if (this.current.get(opened.catalog.id)?.fingerprint === opened.fingerprint) return;
      this.current.set(opened.catalog.id, opened);
      if (notify) for (const listener of this.listeners) listener(opened.catalog);
    } catch (err) {
      this.options.logger.error(
        { tenant: received?.id, err: (err as Error).message },
        'published catalog rejected; keeping the previous one',
      );
    }
  }

  private async redisTenantIds(): Promise<string[] | undefined> {
    return this.reader.tenantIds();
  }

  // Raw documents, typed for the reconciliation's id / version reads; accept() validates each one.
  private async fromRedis(ids: string[]): Promise<PublishedCatalog[] | undefined> {
    return (await this.reader.fromRedis(ids)) as PublishedCatalog[] | undefined;
  }

  private async fromRegistry(tenantId?: string): Promise<PublishedCatalog[] | undefined> {
    return (await this.reader.fromRegistry(tenantId)) as PublishedCatalog[] | undefined;
  }

  private async registryVersions(): Promise<Map<string, string> | undefined> {
    return this.reader.registryVersions();
  }
}
