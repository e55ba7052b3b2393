import { createRedis, mgetAcrossSlots, scanKeys, type RedisClient } from '@switchboard/redis-connection';
import { switchboardMetrics } from '@switchboard/telemetry';

export interface ChainCacheOptions {
  redisUrl: string;
  /** Every key gets `${prefix}:`. */
  prefix: string;
  /** Per-command timeout; a slow Redis counts as a miss. Default 150 ms. */
  commandTimeoutMs?: number;
}

/**
 * JSON values in Redis with TTLs. Every failure (Redis down, slow, bad JSON) is a miss or a
 * dropped write, never an error: the caller then reads the chain directly. Commands are not
 * queued while disconnected (`enableOfflineQueue: false`), so a dead Redis costs nothing.
 */
export class ChainCache {
  readonly redis: RedisClient;
  private readonly prefix: string;

  constructor(options: ChainCacheOptions) {
    this.prefix = options.prefix;
    this.redis = createRedis(options.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
      commandTimeout: options.commandTimeoutMs ?? 150,
      retryStrategy: (attempt) => Math.min(attempt * 250, 5_000),
      lazyConnect: false,
    });
    // Connection errors are expected when Redis is down; reads degrade to the chain.
    this.redis.on('error', () => undefined);
  }

  /** True while connected; used to decide whether the BullMQ path can be used. */
  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  /** Resolves once connected, or false after `timeoutMs`. */
  async waitReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        resolve(false);
      }, timeoutMs);
      const onReady = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.redis.once('ready', onReady);
    });
  }

  key(...parts: string[]): string {
    return `${this.prefix}:${parts.join(':')}`;
  }

  async get<T>(key: string): Promise<T | undefined> {
    if (!this.ready) return undefined;
    try {
      const v = await this.redis.get(key);
      countLookups(this.prefix, [key], v === null ? 0 : 1);
      return v === null ? undefined : (JSON.parse(v) as T);
    } catch {
      return undefined;
    }
  }

  async mget<T>(keys: string[]): Promise<(T | undefined)[]> {
    if (!this.ready || keys.length === 0) return keys.map(() => undefined);
    try {
      const values = await mgetAcrossSlots(this.redis, keys);
      countLookups(this.prefix, keys, values.filter((v) => v !== null).length);
      return values.map((v) => (v === null ? undefined : (JSON.parse(v) as T)));
    } catch {
      return keys.map(() => undefined);
    }
  }

  async set(key: string, value: unknown, ttlSec: number): Promise<void> {
    if (!this.ready) return;
    try {
      await this.redis.set(key, JSON.stringify(value), 'EX', ttlSec);
    } catch {
      // a lost write only costs a later miss
    }
  }

  /** Deletes every key under this cache's prefix (tests). */
  async clear(): Promise<void> {
    if (!this.ready) return;
    // One DEL per key: on a Cluster the keys live in many slots.
    const keys = await scanKeys(this.redis, `${this.prefix}:*`);
    await Promise.all(keys.map((k) => this.redis.del(k)));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** `chain_reader_cache_lookups_total{kind,result}`; kind = the key's first part after the prefix (bounded: the code's key families). */
function countLookups(prefix: string, keys: string[], hits: number): void {
  const kind = keys[0]?.slice(prefix.length + 1).split(':')[0] ?? 'unknown';
  const lookups = switchboardMetrics().chain.cacheLookups;
  if (hits > 0) lookups.add(hits, { kind, result: 'hit' });
  if (keys.length - hits > 0) lookups.add(keys.length - hits, { kind, result: 'miss' });
}
