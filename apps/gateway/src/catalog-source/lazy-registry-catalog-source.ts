import { createHash } from 'node:crypto';
import { metrics, type Counter } from '@opentelemetry/api';
import type { LocalBundle } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';
import { CatalogFeedReader, RollingWindow } from '@switchboard/tenant-config';
import type { CatalogSource, OnDemandTenants, TenantCatalog } from './catalog-source';
import { openTenantDocument } from './open-tenant-document';
import type { RegistryCatalogSourceOptions } from './registry-catalog-source';

/** Tenants missing from Redis fetched from the registry per reconciliation round (Redis flushed: the rest next round). */
const REPAIRS_PER_ROUND = 20;
/** Resident tenants' documents read per MGET during reconciliation. */
const RECONCILE_BATCH = 256;
/** Resident tenants a periodic reconciliation compares (the next ones each period; a reconnect compares all). */
const RECONCILE_PER_PERIOD = 512;

export interface LazyRegistryCatalogSourceOptions extends RegistryCatalogSourceOptions {
  /**
   * Registry look-ups per second for ids Redis does not hold (burst twice as many): Redis is
   * the published set, the registry only repairs a Redis that lost a key, so a scan of made-up
   * ids costs one Redis GET each (bounded by the working set's cold rate) and this many HTTP calls.
   */
  registryMissesPerSec?: number;
}

/** What the source remembers of a resident tenant: enough to tell whether Redis holds another version. */
interface Resident {
  fingerprint: string;
  /** sha1 of the raw Redis value it was read from (undefined when it came from the registry). */
  rawHash: string | undefined;
  bytes: number;
}

/**
 * The registry's tenants fetched on first use (Redis `sb:catalog:<id>`, else the registry's
 * `/internal/catalogs/<id>`), for a gateway whose memory and boot must not grow with the
 * platform's tenant count. Only tenants the gateway holds are watched: a `catalog:changed` for
 * one of them refetches it, and the periodic reconciliation compares their Redis values (MGET in
 * batches) with what was read. Every `catalog:changed` id also reaches `onInvalidate`, so the
 * gateway's negative cache and in-flight fetches never keep a version older than the message.
 */
export class LazyRegistryCatalogSource implements CatalogSource, OnDemandTenants {
  readonly bundles: readonly LocalBundle[] = [];
  readonly onDemand: OnDemandTenants = this;
  /** Redis GETs and registry calls issued for cold fetches (tests count them). */
  readonly calls = { redis: 0, registry: 0 };
  private readonly resident = new Map<string, Resident>();
  private readonly listeners = new Set<(tenant: TenantCatalog) => void>();
  private readonly invalidations = new Set<(tenantId: string) => void>();
  private readonly reconciled: Counter = metrics.getMeter('switchboard').createCounter('gateway.catalog.reconciled', {
    description: 'Tenant catalogs repaired from the registry by reconciliation, by kind (missing, stale)',
  });
  private readonly reader: CatalogFeedReader;
  private readonly box: SecretBox;
  private readonly missRate: number;
  private missTokens: number;
  private missRefilled = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly window = new RollingWindow(RECONCILE_PER_PERIOD);

  constructor(private readonly options: LazyRegistryCatalogSourceOptions) {
    this.box = new SecretBox(options.secretsKey);
    this.reader = new CatalogFeedReader({ ...options, warn: (message, details) => options.logger.warn(details, message) });
    this.missRate = options.registryMissesPerSec ?? 20;
    this.missTokens = this.missRate * 2;
  }

  /** Subscribes to `catalog:changed` and starts the reconciliation of resident tenants; loads no tenant. */
  async load(): Promise<TenantCatalog[]> {
    await this.reader.start(
      (tenantId) => void this.onChanged(tenantId),
      () => void this.reconcile('reconnect'),
    );
    const every = this.options.resyncMs ?? 30_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.reconcile('periodic'), every);
      this.timer.unref();
    }
    return [];
  }

  subscribe(listener: (tenant: TenantCatalog) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onInvalidate(listener: (tenantId: string) => void): () => void {
    this.invalidations.add(listener);
    return () => this.invalidations.delete(listener);
  }

  sizeOf(tenantId: string): number | undefined {
    return this.resident.get(tenantId)?.bytes;
  }

  forget(tenantId: string): void {
    this.resident.delete(tenantId);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.reader.close();
  }

  async fetch(tenantId: string): Promise<TenantCatalog | 'unknown' | 'unavailable'> {
    this.calls.redis++;
    const raw = (await this.reader.rawDocuments([tenantId]))?.[0];
    if (typeof raw === 'string') return this.accept(tenantId, raw, sha1(raw), Buffer.byteLength(raw)) ?? 'unavailable';
    // Redis answered "no such key" (null) or is down (undefined): the registry, for a miss only within the miss budget.
    if (!this.options.registryUrl) return raw === null ? 'unknown' : 'unavailable';
    if (raw === null && !this.takeMiss()) return 'unknown';
    this.calls.registry++;
    const fromRegistry = await this.reader.registryDocument(tenantId);
    if (fromRegistry === null) return 'unknown';
    if (fromRegistry === undefined) return 'unavailable';
    return this.accept(tenantId, fromRegistry.body, undefined, fromRegistry.bytes) ?? 'unavailable';
  }

  /** Validates and opens a document read for `tenantId`; undefined (logged) when it is rejected. */
  private accept(tenantId: string, raw: unknown, rawHash: string | undefined, bytes: number): TenantCatalog | undefined {
    try {
      const opened = openTenantDocument(typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw, this.box);
      if (opened.catalog.id !== tenantId) throw new Error(`document of ${opened.catalog.id} stored under ${tenantId}`);
      this.resident.set(tenantId, { fingerprint: opened.fingerprint, rawHash, bytes });
      return opened.catalog;
    } catch (err) {
      this.options.logger.error({ tenant: tenantId, err: (err as Error).message }, 'published catalog rejected; keeping the previous one');
      return undefined;
    }
  }

  private async onChanged(tenantId: string): Promise<void> {
    for (const listener of this.invalidations) listener(tenantId);
    if (this.resident.has(tenantId)) await this.refresh(tenantId, (await this.reader.rawDocuments([tenantId]))?.[0]);
  }

  /** Re-reads a resident tenant from `raw` (its Redis value; the registry when Redis lacks it) and hands on a new version. */
  private async refresh(tenantId: string, raw: string | null | undefined): Promise<boolean> {
    const held = this.resident.get(tenantId);
    if (!held) return false;
    let catalog: TenantCatalog | undefined;
    if (typeof raw === 'string') {
      const hash = sha1(raw);
      if (hash === held.rawHash) return false;
      catalog = this.accept(tenantId, raw, hash, Buffer.byteLength(raw));
    } else {
      const fromRegistry = await this.reader.registryDocument(tenantId);
      // Not published any more or unreachable (keep serving what we hold), or dropped from the working set meanwhile.
      if (!fromRegistry || !this.resident.has(tenantId)) return false;
      catalog = this.accept(tenantId, fromRegistry.body, undefined, fromRegistry.bytes);
    }
    // Rejected, or the same version (e.g. re-serialized): nothing to hand on.
    if (!catalog || this.resident.get(tenantId)?.fingerprint === held.fingerprint) return false;
    for (const listener of this.listeners) listener(catalog);
    return true;
  }

  /**
   * Compares resident tenants' Redis values with what was read (MGET a batch at a time, hashes
   * compared, nothing parsed unless it changed): all of them on a reconnect (messages missed
   * while disconnected), the next RECONCILE_PER_PERIOD each period; a tenant Redis lost is read
   * from the registry, a few per round.
   */
  private async reconcile(reason: 'reconnect' | 'periodic'): Promise<void> {
    if (this.closed || this.resident.size === 0) return;
    let stale = 0;
    let missing = 0;
    const held = [...this.resident.keys()];
    const ids = reason === 'periodic' ? this.window.take(held) : held;
    await this.reader.eachRawBatch(ids, RECONCILE_BATCH, async (batch, raws) => {
      for (let i = 0; i < batch.length; i++) {
        const raw = raws[i];
        if (raw === null && missing >= REPAIRS_PER_ROUND) continue;
        if (raw === null) missing++;
        if ((await this.refresh(batch[i] as string, raw)) && raw !== null) stale++;
      }
    });
    if (stale > 0) this.reconciled.add(stale, { kind: 'stale', reason });
    if (stale > 0)
      this.options.logger.warn({ reason, stale, resident: this.resident.size }, 'resident tenant catalogs reconciled from Redis');
  }

  /** One registry look-up for an id Redis lacks, from a bucket refilled at `registryMissesPerSec`. */
  private takeMiss(): boolean {
    const now = Date.now();
    this.missTokens = Math.min(this.missRate * 2, this.missTokens + ((now - this.missRefilled) / 1000) * this.missRate);
    this.missRefilled = now;
    if (this.missTokens < 1) return false;
    this.missTokens -= 1;
    return true;
  }
}

function sha1(value: string): string {
  return createHash('sha1').update(value).digest('base64');
}
