import { createHash } from 'node:crypto';
import { parseTenantDocument, type PublishedCatalog } from '@switchboard/catalog';
import { CatalogFeedReader } from './catalog-feed-reader';
import { ColdLoads, type ColdLoadStats } from './cold-loads';
import { RollingWindow } from './rolling-window';
import type { TenantDocumentFeedOptions } from './tenant-document-feed';

/** How long an id is answered "unknown" without a look-up when neither store could be reached. */
const UNAVAILABLE_TTL_MS = 1_000;
/** Held tenants' Redis values read per MGET by the periodic re-sync (one batch of documents in memory at a time). */
const RESYNC_BATCH = 256;
/** Held tenants a periodic re-sync compares (the next ones each period; a reconnect compares all). */
const RESYNC_PER_PERIOD = 512;

export interface LazyTenantDocumentFeedOptions extends TenantDocumentFeedOptions {
  /** Most tenants held at once; past it the least recently used is dropped (`onEvict`). */
  maxResident: number;
  /** Most ids remembered as unknown (oldest forgotten first). */
  negativeMax: number;
  /** How long an unknown id answers without a look-up (a `catalog:changed` for it ends it at once). */
  negativeTtlMs: number;
  /** Look-ups of ids neither held nor remembered, per second (burst twice as many); past it they are not looked up. */
  fetchesPerSec: number;
  /** A held tenant was dropped (budget, or its document is gone): the consumer forgets it. */
  onEvict: (tenantId: string) => void;
  now?: () => number;
}

/** The cold path's counters, and tenants dropped. */
export interface LazyFeedStats extends ColdLoadStats {
  evicted: number;
}

type Fetched = { raw: unknown; hash: string } | 'unknown' | 'unavailable';

/**
 * The registry's tenant documents read on use rather than all at boot (the auth service at
 * 100,000 tenants; the gateway's working set follows the same rules): `load(id)` reads one
 * tenant (Redis `sb:catalog:<id>`, else the registry's `/internal/catalogs/<id>`) once however
 * many callers wait for it; held tenants are bounded by count (least recently used dropped);
 * ids no store has are remembered in a bounded map apart from them; `catalog:changed` re-reads
 * only held tenants; the periodic re-sync compares only held tenants' Redis values by hash.
 */
export class LazyTenantDocumentFeed {
  /** Held tenants → hash of the raw document last applied; insertion order is recency. */
  private readonly resident = new Map<string, string>();
  private readonly cold: ColdLoads<{ raw: unknown; hash: string }, true>;
  private readonly reader: CatalogFeedReader;
  private listener: ((doc: PublishedCatalog) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private evicted = 0;
  private readonly window = new RollingWindow(RESYNC_PER_PERIOD);

  constructor(private readonly options: LazyTenantDocumentFeedOptions) {
    this.reader = new CatalogFeedReader({ ...options, warn: (message, details) => this.warn(message, details) });
    this.cold = new ColdLoads({
      read: (tenantId) => this.fetch(tenantId),
      apply: (tenantId, got) => (this.accept(tenantId, got) ? true : undefined),
      negativeMax: options.negativeMax,
      negativeTtlMs: options.negativeTtlMs,
      unavailableTtlMs: UNAVAILABLE_TTL_MS,
      fetchesPerSec: options.fetchesPerSec,
      onError: (tenant, err) => this.warn('tenant read failed', { tenant, err: err.message }),
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /** The cold path's counters and the tenants dropped (a copy: read at collection time). */
  get stats(): LazyFeedStats {
    return { ...this.cold.stats, evicted: this.evicted };
  }

  /** Connects and subscribes; loads no tenant. */
  async start(listener: (doc: PublishedCatalog) => void): Promise<void> {
    this.listener = listener;
    await this.reader.start(
      (tenantId) => void this.onChanged(tenantId),
      () => void this.resync(true),
    );
    const every = this.options.resyncMs ?? 30_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.resync(false), every);
      this.timer.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.reader.close();
  }

  get residentCount(): number {
    return this.resident.size;
  }

  /** Ids remembered as unknown (expired entries included until they are asked for or pushed out). */
  get negativeCount(): number {
    return this.cold.negativeSize;
  }

  /**
   * Makes sure `tenantId`'s document was handed to the listener if it exists: undefined when
   * there is nothing to wait for (held, not a tenant id, remembered unknown, or shed), else a
   * promise that resolves (never rejects) once the read was applied or found nothing.
   */
  load(tenantId: string): Promise<unknown> | undefined {
    if (this.closed) return undefined;
    const hash = this.resident.get(tenantId);
    if (hash !== undefined) {
      this.resident.delete(tenantId);
      this.resident.set(tenantId, hash);
      return undefined;
    }
    return this.cold.load(tenantId);
  }

  /** Redis first; the registry when Redis lacks the key or is down. */
  private async fetch(tenantId: string): Promise<Fetched> {
    const cached = (await this.reader.rawDocuments([tenantId]))?.[0];
    if (typeof cached === 'string') {
      try {
        return { raw: JSON.parse(cached) as unknown, hash: digest(cached) };
      } catch {
        this.warn('tenant document in Redis is not JSON', { tenant: tenantId });
      }
    }
    const fromRegistry = await this.reader.registryDocument(tenantId);
    if (fromRegistry) return { raw: fromRegistry.body, hash: digest(JSON.stringify(fromRegistry.body)) };
    // Redis answered "no such key" (it holds every published tenant) or the registry answered 404.
    if (fromRegistry === null || cached === null) return 'unknown';
    return 'unavailable';
  }

  /** Validates and applies a read; a rejected document never replaces the previous one. Returns whether it is held. */
  private accept(tenantId: string, got: { raw: unknown; hash: string }): boolean {
    if (this.closed) return false;
    const held = this.resident.get(tenantId);
    if (held === got.hash) return true;
    let doc: PublishedCatalog;
    try {
      doc = parseTenantDocument(got.raw);
      if (doc.id !== tenantId) throw new Error(`document id "${doc.id}" is not the tenant read`);
    } catch (err) {
      this.warn('tenant document rejected; keeping the previous one', { tenant: tenantId, err: (err as Error).message });
      return held !== undefined;
    }
    this.resident.delete(tenantId);
    this.resident.set(tenantId, got.hash);
    this.listener?.(doc);
    while (this.resident.size > Math.max(1, this.options.maxResident)) this.drop(this.resident.keys().next().value as string);
    return true;
  }

  private drop(tenantId: string): void {
    if (!this.resident.delete(tenantId)) return;
    this.evicted++;
    this.options.onEvict(tenantId);
  }

  /** A `catalog:changed`: forget the id was unknown, mark a read in flight stale, re-read a held tenant. */
  private async onChanged(tenantId: string): Promise<void> {
    if (this.cold.invalidate(tenantId) || !this.resident.has(tenantId)) return;
    const got = await this.fetch(tenantId);
    // A tenant no store has any more is no longer served.
    if (got === 'unknown') this.drop(tenantId);
    else if (got !== 'unavailable') this.accept(tenantId, got);
  }

  /** Held tenants only: their Redis values compared by hash with what was applied (missed messages), a batch at a time. */
  private async resync(all: boolean): Promise<void> {
    if (this.closed) return;
    const held = [...this.resident.keys()];
    await this.reader.eachRawBatch(all ? held : this.window.take(held), RESYNC_BATCH, (ids, values) => {
      ids.forEach((id, i) => {
        const value = values[i];
        if (typeof value !== 'string' || !this.resident.has(id) || this.resident.get(id) === digest(value)) return;
        try {
          this.accept(id, { raw: JSON.parse(value) as unknown, hash: digest(value) });
        } catch {
          this.warn('tenant document in Redis is not JSON', { tenant: id });
        }
      });
    });
  }

  private warn(message: string, details: Record<string, unknown>): void {
    this.options.warn?.(message, details);
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
