import { catalogRedisKeys } from '@switchboard/catalog';
import { createRedis, mgetAcrossSlots, whenReady, type RedisClient } from '@switchboard/redis-connection';

export interface CatalogFeedReaderOptions {
  /** Redis holding `sb:catalog:<tenant>`, `sb:tenants` and the `catalog:changed` channel. */
  redisUrl?: string;
  /** Prefix of those keys and the channel (tests isolate with it); default none. */
  namespace?: string;
  /** Registry base URL for `GET /internal/catalogs` when Redis misses or is down. */
  registryUrl?: string;
  internalToken?: string;
  /** Where problems go (Redis or the registry unreachable, a value that is not JSON). */
  warn: (message: string, details: Record<string, unknown>) => void;
}

const FETCH_TIMEOUT_MS = 5_000;

/**
 * The transport under every reader of the registry's published tenant documents (the gateway's
 * catalog source, the auth service's tenant feed): the Redis snapshot keys, the `catalog:changed`
 * channel, and the registry's internal API as the fallback. It returns raw (unvalidated) documents;
 * each caller validates and decides what a change means to it. Every read answers `undefined` when
 * its store is not configured or unreachable, so a caller can tell a store that is down from one that is empty.
 */
export class CatalogFeedReader {
  private readonly keys: ReturnType<typeof catalogRedisKeys>;
  private readonly redis: RedisClient | undefined;
  private readonly subscriber: RedisClient | undefined;

  constructor(private readonly options: CatalogFeedReaderOptions) {
    this.keys = catalogRedisKeys(options.namespace);
    if (options.redisUrl) {
      // Reads fail fast (no offline queue) so a Redis outage falls through to the registry at once.
      this.redis = createRedis(options.redisUrl, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        commandTimeout: 2_000,
        lazyConnect: true,
      });
      this.subscriber = createRedis(options.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
      this.redis.on('error', () => undefined);
      this.subscriber.on('error', () => undefined);
    }
  }

  /**
   * Connects to Redis (when configured) and subscribes: `onChanged(tenantId)` per `catalog:changed`
   * message, `onReady()` on every (re)connection of the subscriber, so a message missed while
   * disconnected is caught up by the caller's re-sync. Resolves once the connection was tried.
   */
  async start(onChanged: (tenantId: string) => void, onReady: () => void): Promise<void> {
    if (!this.redis || !this.subscriber) return;
    await this.redis
      .connect()
      .catch((err: Error) => this.options.warn('Redis unavailable at boot; using the registry internal API', { err: err.message }));
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.keys.channel) return;
      let tenantId: unknown;
      try {
        tenantId = (JSON.parse(message) as { tenantId?: unknown }).tenantId;
      } catch {
        return;
      }
      if (typeof tenantId === 'string') onChanged(tenantId);
    });
    this.subscriber.on('ready', () => {
      void this.subscriber?.subscribe(this.keys.channel).catch(() => undefined);
      // After a failover the command connection is usually reconnecting too: re-sync once it is
      // back (bounded), or the re-sync falls back to the registry's versions, which do not show a
      // settings-only change, and a message lost in the gap stays lost.
      const redis = this.redis;
      void (redis ? whenReady(redis, 5_000) : Promise.resolve(true)).then(() => onReady());
    });
    await this.subscriber.connect().catch(() => undefined);
  }

  close(): void {
    this.redis?.disconnect();
    this.subscriber?.disconnect();
  }

  /** The tenant ids Redis lists (`sb:tenants`), or undefined when Redis is not configured or down. */
  async tenantIds(): Promise<string[] | undefined> {
    if (!this.redis) return undefined;
    try {
      return await this.redis.smembers(this.keys.tenants);
    } catch {
      return undefined;
    }
  }

  /** The documents Redis holds for `ids` (missing and non-JSON values left out), or undefined when Redis is down. */
  async fromRedis(ids: string[]): Promise<unknown[] | undefined> {
    if (!this.redis) return undefined;
    if (ids.length === 0) return [];
    try {
      const values = await mgetAcrossSlots(
        this.redis,
        ids.map((id) => this.keys.catalog(id)),
      );
      const out: unknown[] = [];
      for (const v of values) {
        if (typeof v !== 'string') continue;
        try {
          out.push(JSON.parse(v));
        } catch {
          this.options.warn('tenant document in Redis is not JSON', {});
        }
      }
      return out;
    } catch (err) {
      this.options.warn('Redis read failed', { err: (err as Error).message });
      return undefined;
    }
  }

  /**
   * Raw values of `sb:catalog:<id>` for `ids`, one MGET batch of `batch` keys at a time, each
   * handed to `visit` (null where missing) before the next is read: a working set's periodic
   * comparison holds one batch of documents, not all of them (5,000 tenants of 40 KB are 200 MB).
   * False when Redis is not configured or a read failed (the batches visited so far stand).
   */
  async eachRawBatch(
    ids: readonly string[],
    batch: number,
    visit: (ids: readonly string[], values: readonly (string | null)[]) => Promise<void> | void,
  ): Promise<boolean> {
    if (!this.redis) return false;
    for (let i = 0; i < ids.length; i += batch) {
      const part = ids.slice(i, i + batch);
      let values: (string | null)[];
      try {
        values = await mgetAcrossSlots(
          this.redis,
          part.map((id) => this.keys.catalog(id)),
        );
      } catch (err) {
        this.options.warn('Redis read failed', { err: (err as Error).message });
        return false;
      }
      await visit(part, values);
    }
    return true;
  }

  /**
   * Raw values of `sb:catalog:<id>` for `ids` (null where missing), read in MGET batches of
   * `batch` keys; undefined when Redis is not configured or down. For callers that fetch on use
   * and compare what they hold without parsing (the gateway's working set).
   */
  async rawDocuments(ids: readonly string[], batch = 256): Promise<(string | null)[] | undefined> {
    if (!this.redis) return undefined;
    const out: (string | null)[] = [];
    try {
      for (let i = 0; i < ids.length; i += batch) {
        const keys = ids.slice(i, i + batch).map((id) => this.keys.catalog(id));
        out.push(...(await mgetAcrossSlots(this.redis, keys)));
      }
      return out;
    } catch (err) {
      this.options.warn('Redis read failed', { err: (err as Error).message });
      return undefined;
    }
  }

  /**
   * `GET /internal/catalogs/<tenant>` telling "not published" (null, a 404) and "unreachable"
   * (undefined) apart, with the body's length in bytes; a fetch on use negatively caches only the former.
   */
  async registryDocument(tenantId: string): Promise<{ body: unknown; bytes: number } | null | undefined> {
    if (!this.options.registryUrl) return undefined;
    try {
      const res = await fetch(`${this.options.registryUrl.replace(/\/+$/, '')}/internal/catalogs/${encodeURIComponent(tenantId)}`, {
        headers: { authorization: `Bearer ${this.options.internalToken ?? ''}` },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        await res.body?.cancel();
        return undefined;
      }
      const text = await res.text();
      return { body: JSON.parse(text) as unknown, bytes: Buffer.byteLength(text) };
    } catch (err) {
      this.options.warn('registry internal API unavailable', { err: (err as Error).message });
      return undefined;
    }
  }

  /** `GET /internal/catalogs[/<tenant>]`: one tenant's document or all of them, or undefined when the registry is unreachable. */
  async fromRegistry(tenantId?: string): Promise<unknown[] | undefined> {
    const body = await this.internal(
      `/internal/catalogs${tenantId ? `/${encodeURIComponent(tenantId)}` : ''}`,
      'registry internal API unavailable',
    );
    if (body === undefined) return undefined;
    if (tenantId) return [body];
    const catalogs = (body as { catalogs?: unknown } | null)?.catalogs;
    return Array.isArray(catalogs) ? catalogs : [];
  }

  /** `GET /internal/catalog-versions`: tenant → current version, or undefined when the registry is unreachable. */
  async registryVersions(): Promise<Map<string, string> | undefined> {
    const body = await this.internal('/internal/catalog-versions', 'registry internal API unavailable (catalog versions)');
    const versions = (body as { versions?: unknown } | null | undefined)?.versions;
    if (!versions || typeof versions !== 'object') return undefined;
    return new Map(Object.entries(versions).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }

  private async internal(path: string, failure: string): Promise<unknown> {
    if (!this.options.registryUrl) return undefined;
    try {
      const res = await fetch(`${this.options.registryUrl.replace(/\/+$/, '')}${path}`, {
        headers: { authorization: `Bearer ${this.options.internalToken ?? ''}` },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!res.ok) return undefined;
      return (await res.json()) as unknown;
    } catch (err) {
      this.options.warn(failure, { err: (err as Error).message });
      return undefined;
    }
  }
}
