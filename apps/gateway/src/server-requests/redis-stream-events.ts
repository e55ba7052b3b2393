import { createHash } from 'node:crypto';
import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { StoredStreamEvent, StreamEventStore } from '@switchboard/mcp-http';

/** Bounds of the stored streams. */
export interface StreamRetention {
  /** Events kept per stream (the oldest are trimmed; the response is the last event). */
  maxEvents: number;
  /** How long a stream stays resumable after its last event, in ms. */
  ttlMs: number;
  /** Streams one tenant may have retained at once; a stream past it is served live but not stored. */
  maxStreamsPerTenant: number;
  /** Largest event stored; a bigger one is dropped from the stored copy (a resumed stream then ends without it). */
  maxEventBytes: number;
}

export const DEFAULT_STREAM_RETENTION: StreamRetention = { maxEvents: 200, ttlMs: 5 * 60_000, maxStreamsPerTenant: 200, maxEventBytes: 1024 * 1024 };

// KEYS: stream, tenant index. ARGV: seq, data, final, maxEvents, ttlMs, maxStreams, now, streamId.
// The first event (seq 0) admits the stream under the tenant's bound; later ones only extend a stream that exists.
const APPEND = `
local ttl = tonumber(ARGV[5])
if ARGV[1] == '0' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[7])
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 0 end
  redis.call('ZADD', KEYS[2], tonumber(ARGV[7]) + ttl, ARGV[8])
  redis.call('PEXPIRE', KEYS[2], ttl)
elseif redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[4], '0-' .. (tonumber(ARGV[1]) + 1), 'd', ARGV[2], 'f', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1`;

/**
 * Legacy SSE stream events in Redis streams (`<ns>sb:sse:{<tenant hash>}:<stream>`), for
 * `Last-Event-ID` resumption on any replica: each stream is capped (MAXLEN) and expires
 * after `ttlMs`; a per-tenant sorted set bounds how many streams a tenant has retained.
 */
export class RedisStreamEvents implements StreamEventStore {
  private readonly redis: RedisClient;

  constructor(
    redisUrl: string,
    private readonly namespace: string,
    private readonly logger: Logger,
    private readonly retention: StreamRetention = DEFAULT_STREAM_RETENTION,
  ) {
    this.redis = createRedis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 2_000, lazyConnect: true });
    this.redis.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'stream events: Redis error'));
  }

  async connect(): Promise<void> {
    await this.redis.connect();
  }

  append(tenantId: string, streamId: string, seq: number, data: string, final: boolean): void {
    if (Buffer.byteLength(data) > this.retention.maxEventBytes) return;
    const r = this.retention;
    this.redis
      .eval(APPEND, 2, this.key(tenantId, streamId), this.index(tenantId), String(seq), data, final ? '1' : '0', String(r.maxEvents), String(r.ttlMs), String(r.maxStreamsPerTenant), String(Date.now()), streamId)
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'stream events: append failed'));
  }

  async read(tenantId: string, streamId: string, afterSeq: number): Promise<{ events: StoredStreamEvent[]; final: boolean } | undefined> {
    const key = this.key(tenantId, streamId);
    const [entries, exists] = await Promise.all([this.redis.xrange(key, `(0-${afterSeq + 1}`, '+', 'COUNT', this.retention.maxEvents), this.redis.exists(key)]);
    if (exists === 0) return undefined;
    let final = false;
    const events: StoredStreamEvent[] = [];
    for (const [id, fields] of entries) {
      const seq = Number(id.split('-')[1]) - 1;
      const value: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) value[fields[i]!] = fields[i + 1]!;
      events.push({ seq, data: value.d ?? '' });
      if (value.f === '1') final = true;
    }
    return { events, final };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }

  private key(tenantId: string, streamId: string): string {
    // `{hash}` is a Redis Cluster hash tag: the APPEND script's two keys share one slot.
    return `${this.namespace}sb:sse:{${tenantHash(tenantId)}}:${streamId}`;
  }

  private index(tenantId: string): string {
    return `${this.namespace}sb:sse-streams:{${tenantHash(tenantId)}}`;
  }
}

function tenantHash(tenantId: string): string {
  return createHash('sha256').update(tenantId).digest('base64url').slice(0, 16);
}
