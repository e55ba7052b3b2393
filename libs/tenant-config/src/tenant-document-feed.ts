import { catalogRedisKeys, parseTenantDocument, type PublishedCatalog } from '@switchboard/catalog';
import { createRedis, mgetAcrossSlots, whenReady, type RedisClient } from '@switchboard/redis-connection';

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

const FETCH_TIMEOUT_MS = 5_000;

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
  private readonly keys: ReturnType<typeof catalogRedisKeys>;
  private readonly redis: RedisClient | undefined;
  private readonly subscriber: RedisClient | undefined;
  private listener: ((doc: PublishedCatalog) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: TenantDocumentFeedOptions) {
    this.keys = catalogRedisKeys(options.namespace);
    if (options.redisUrl) {
      this.redis = createRedis(options.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 2_000, lazyConnect: true });
      this.subscriber = createRedis(options.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
      this.redis.on('error', () => undefined);
      this.subscriber.on('error', () => undefined);
    }
  }

  /** Loads every current document (resolves once the first load was tried), then keeps `listener` up to date. */
  async start(listener: (doc: PublishedCatalog) => void): Promise<void> {
    this.listener = listener;
    if (this.redis && this.subscriber) {
      await this.redis.connect().catch((err: Error) => this.warn('Redis unavailable at boot; using the registry internal API', { err: err.message }));
      this.subscriber.on('message', (channel: string, message: string) => {
        if (channel === this.keys.channel) void this.onChanged(message);
      });
      this.subscriber.on('ready', () => {
        void this.subscriber?.subscribe(this.keys.channel).catch(() => undefined);
        // Re-sync what the gap may have missed, once the command connection is back too (after a failover both reconnect).
        const redis = this.redis;
        void (redis ? whenReady(redis, 5_000) : Promise.resolve(true)).then(() => this.resync());
      });
      await this.subscriber.connect().catch(() => undefined);
    }
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
    this.redis?.disconnect();
    this.subscriber?.disconnect();
  }

  private async onChanged(message: string): Promise<void> {
    let tenantId: unknown;
    try {
      tenantId = (JSON.parse(message) as { tenantId?: unknown }).tenantId;
    } catch {
      return;
    }
    if (typeof tenantId !== 'string') return;
    const raw = (await this.fromRedis([tenantId]))?.[0] ?? (await this.fromRegistry(tenantId))?.[0];
    if (raw !== undefined) this.accept(raw);
  }

  private async resync(): Promise<void> {
    if (this.closed) return;
    const ids = await this.redisTenantIds();
    let all: unknown[] | undefined;
    if (ids !== undefined) {
      const found = (await this.fromRedis(ids)) ?? [];
      all = found;
      if (found.length < ids.length || ids.length === 0) all = [...found, ...((await this.fromRegistry()) ?? [])];
    } else {
      all = await this.fromRegistry();
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
      this.warn('tenant document rejected; keeping the previous one', { tenant: (raw as { id?: unknown } | null)?.id, err: (err as Error).message });
    }
  }

  private async redisTenantIds(): Promise<string[] | undefined> {
    if (!this.redis) return undefined;
    try {
      return await this.redis.smembers(this.keys.tenants);
    } catch {
      return undefined;
    }
  }

  private async fromRedis(ids: string[]): Promise<unknown[] | undefined> {
    if (!this.redis) return undefined;
    if (ids.length === 0) return [];
    try {
      const values = await mgetAcrossSlots(this.redis, ids.map((id) => this.keys.catalog(id)));
      const out: unknown[] = [];
      for (const v of values) {
        if (typeof v !== 'string') continue;
        try {
          out.push(JSON.parse(v));
        } catch {
          this.warn('tenant document in Redis is not JSON', {});
        }
      }
      return out;
    } catch (err) {
      this.warn('Redis read failed', { err: (err as Error).message });
      return undefined;
    }
  }

  private async fromRegistry(tenantId?: string): Promise<unknown[] | undefined> {
    if (!this.options.registryUrl) return undefined;
    const url = `${this.options.registryUrl.replace(/\/+$/, '')}/internal/catalogs${tenantId ? `/${encodeURIComponent(tenantId)}` : ''}`;
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${this.options.internalToken ?? ''}` }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) return undefined;
      const body = (await res.json()) as { catalogs?: unknown[] };
      return tenantId ? [body] : Array.isArray(body.catalogs) ? body.catalogs : [];
    } catch (err) {
      this.warn('registry internal API unavailable', { err: (err as Error).message });
      return undefined;
    }
  }

  private warn(message: string, details: Record<string, unknown>): void {
    this.options.warn?.(message, details);
  }
}
