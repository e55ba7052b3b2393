import { parseTenantDocument, type PublishedCatalog } from '@switchboard/catalog';
import { CatalogFeedReader } from './catalog-feed-reader';

export interface TenantDocumentFeedOptions {
  /** Redis holding `sb:catalog:<tenant>`, `sb:tenants` and the `catalog:changed` channel. */
  redisUrl?: string;
  /** Prefix of those keys and the channel (tests isolate with it); default none. */
  namespace?: string;
  /** Registry base URL for `GET /internal/catalogs` when Redis misses or is down. */
  registryUrl?: string;
  internalToken?: string;
  /** Full re-sync interval (catches messages missed while disconnected), in ms; 0 = none. */
  resyncMs?: number;
  /** Where problems go (a rejected document, Redis or the registry unreachable). */
  warn?: (message: string, details: Record<string, unknown>) => void;
}

/**
 * The registry's tenant documents as a live feed for a data-plane service (the auth service;
 * the gateway's catalog source reads the same keys): Redis snapshot first, the registry's
 * internal API when Redis misses, every `catalog:changed` message applied within one Redis
 * round trip, a periodic re-sync for messages missed while disconnected. Each document is
 * validated once (`parseTenantDocument`) and handed on only when its version changed; a
 * rejected document never replaces the previous one. When Redis and the registry are both
 * down nothing is dropped.
 */
export class TenantDocumentFeed {
  private readonly versions = new Map<string, string>();
  private readonly reader: CatalogFeedReader;
  private listener: ((doc: PublishedCatalog) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: TenantDocumentFeedOptions) {
    this.reader = new CatalogFeedReader({ ...options, warn: (message, details) => this.warn(message, details) });
  }

  /** Loads every current document (resolves once the first load was tried), then keeps `listener` up to date. */
  async start(listener: (doc: PublishedCatalog) => void): Promise<void> {
    this.listener = listener;
    await this.reader.start(
      (tenantId) => void this.onChanged(tenantId),
      () => void this.resync(),
    );
    await this.resync();
    const every = this.options.resyncMs ?? 30_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.resync(), every);
      this.timer.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.reader.close();
  }

  private async onChanged(tenantId: string): Promise<void> {
    const raw = (await this.reader.fromRedis([tenantId]))?.[0] ?? (await this.reader.fromRegistry(tenantId))?.[0];
    if (raw !== undefined) this.accept(raw);
  }

  private async resync(): Promise<void> {
    if (this.closed) return;
    const ids = await this.reader.tenantIds();
    let all: unknown[] | undefined;
    if (ids !== undefined) {
      const found = (await this.reader.fromRedis(ids)) ?? [];
      all = found;
      if (found.length < ids.length || ids.length === 0) all = [...found, ...((await this.reader.fromRegistry()) ?? [])];
    } else {
      all = await this.reader.fromRegistry();
    }
    for (const raw of all ?? []) this.accept(raw);
  }

  private accept(raw: unknown): void {
    if (this.closed) return;
    try {
      const doc = parseTenantDocument(raw);
      if (this.versions.get(doc.id) === doc.version) return;
      this.versions.set(doc.id, doc.version ?? '');
      this.listener?.(doc);
    } catch (err) {
      this.warn('tenant document rejected; keeping the previous one', {
        tenant: (raw as { id?: unknown } | null)?.id,
        err: (err as Error).message,
      });
    }
  }

  private warn(message: string, details: Record<string, unknown>): void {
    this.options.warn?.(message, details);
  }
}
