import { createHash } from 'node:crypto';
import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { StoredStreamEvent, StreamEventStore } from '@switchboard/mcp-http';

/** Bounds of the stored streams: counts, time and bytes (a byte is counted with {@link EVENT_OVERHEAD_BYTES} per event). */
export interface StreamRetention {
  /** Events kept per stream (the oldest are trimmed; the response is the last event). */
  maxEvents: number;
  /** How long a stream stays resumable after its last event, in ms. */
  ttlMs: number;
  /** Streams one tenant may have retained at once; a stream past it is served live but not stored. */
  maxStreamsPerTenant: number;
  /** Largest event stored; a bigger one is dropped from the stored copy (a resumed stream then ends without it). */
  maxEventBytes: number;
  /** Bytes one stream keeps; past it its oldest events are trimmed (the newest, the response included, stay). */
  maxStreamBytes: number;
  /** Bytes of all of one tenant's streams; past it the tenant's least recently written streams are dropped whole. */
  maxTenantBytes: number;
}

/** Counted per stored event on top of its data: a tiny event still costs Redis an entry. */
export const EVENT_OVERHEAD_BYTES = 128;

export const DEFAULT_STREAM_RETENTION: StreamRetention = {
  maxEvents: 200,
  ttlMs: 5 * 60_000,
  maxStreamsPerTenant: 200,
  maxEventBytes: 1024 * 1024,
  maxStreamBytes: 2 * 1024 * 1024,
  maxTenantBytes: 16 * 1024 * 1024,
};

// KEYS: stream, tenant index (stream id -> expiry), tenant bytes (stream id -> bytes, '#' -> total),
//       the stream's event sizes (a list of "seq:bytes", oldest first: trimming never reads event data back).
// ARGV: seq, data, final, maxEvents, ttlMs, maxStreams, now, streamId, maxStreamBytes, maxTenantBytes,
//       overhead, stream and sizes key prefixes (the tenant's other streams: same hash tag, so the same slot).
// The first event (seq 0) admits the stream under the tenant's count; later ones only extend a
// stream that exists. Bytes are counted here, in the same script as every write and trim, so
// the tenant total cannot drift: expired streams (their score passed) give their bytes back
// before anything is admitted, trimmed events on the spot, evicted streams when dropped.
const APPEND = `
local ttl = tonumber(ARGV[5])
local now = tonumber(ARGV[7])
local sid = ARGV[8]
local size = string.len(ARGV[2]) + tonumber(ARGV[11])
local maxStream = tonumber(ARGV[9])
local maxTenant = tonumber(ARGV[10])
local function drop(s)
  local b = tonumber(redis.call('HGET', KEYS[3], s) or '0')
  redis.call('HDEL', KEYS[3], s)
  if b > 0 then redis.call('HINCRBY', KEYS[3], '#', -b) end
  redis.call('ZREM', KEYS[2], s)
  redis.call('DEL', ARGV[12] .. s, ARGV[13] .. s)
end
for _, s in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do drop(s) end
if size > maxStream or size > maxTenant then return 0 end
if ARGV[1] == '0' then
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 0 end
elseif redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
-- This stream over its count or bytes: its oldest events go.
local mine = tonumber(redis.call('HGET', KEYS[3], sid) or '0')
local trimmed = 0
while redis.call('XLEN', KEYS[1]) > 0 and (mine + size > maxStream or redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[4])) do
  local oldest = redis.call('LPOP', KEYS[4])
  if not oldest then break end
  local at = string.find(oldest, ':', 1, true)
  local len = tonumber(string.sub(oldest, at + 1))
  redis.call('XDEL', KEYS[1], '0-' .. (tonumber(string.sub(oldest, 1, at - 1)) + 1))
  mine = mine - len
  trimmed = trimmed + len
end
if mine < 0 then mine = 0 end
if trimmed > 0 then redis.call('HINCRBY', KEYS[3], '#', -trimmed) end
-- The tenant over its bytes: its least recently written other streams go, whole.
local total = tonumber(redis.call('HGET', KEYS[3], '#') or '0')
while total + size > maxTenant do
  local victim = nil
  for _, s in ipairs(redis.call('ZRANGE', KEYS[2], 0, 1)) do if s ~= sid and victim == nil then victim = s end end
  if victim == nil then break end
  total = total - tonumber(redis.call('HGET', KEYS[3], victim) or '0')
  drop(victim)
end
redis.call('XADD', KEYS[1], '0-' .. (tonumber(ARGV[1]) + 1), 'd', ARGV[2], 'f', ARGV[3])
redis.call('RPUSH', KEYS[4], ARGV[1] .. ':' .. size)
redis.call('HSET', KEYS[3], sid, mine + size)
redis.call('HINCRBY', KEYS[3], '#', size)
redis.call('ZADD', KEYS[2], now + ttl, sid)
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
return 1`;

/**
 * Legacy SSE stream events in Redis streams (`<ns>sb:sse:{<tenant hash>}:<stream>`), for
 * `Last-Event-ID` resumption on any replica: each stream is capped in events and bytes and
 * expires after `ttlMs`; per tenant, a sorted set bounds how many streams are retained and a
 * byte ledger (`<ns>sb:sse-bytes:{<tenant hash>}`) how many bytes they hold together.
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
      .eval(
        APPEND,
        4,
        this.key(tenantId, streamId),
        this.index(tenantId),
        this.bytes(tenantId),
        this.sizes(tenantId, streamId),
        String(seq),
        data,
        final ? '1' : '0',
        String(r.maxEvents),
        String(r.ttlMs),
        String(r.maxStreamsPerTenant),
        String(Date.now()),
        streamId,
        String(r.maxStreamBytes),
        String(r.maxTenantBytes),
        String(EVENT_OVERHEAD_BYTES),
        this.key(tenantId, ''),
        this.sizes(tenantId, ''),
      )
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'stream events: append failed'));
  }

  async read(tenantId: string, streamId: string, afterSeq: number): Promise<{ events: StoredStreamEvent[]; final: boolean } | undefined> {
    const key = this.key(tenantId, streamId);
    const [entries, exists] = await Promise.all([
      this.redis.xrange(key, `(0-${afterSeq + 1}`, '+', 'COUNT', this.retention.maxEvents),
      this.redis.exists(key),
    ]);
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

  /** A stream's event sizes, oldest first (what trimming gives back without reading the events). */
  private sizes(tenantId: string, streamId: string): string {
    return `${this.namespace}sb:sse-sizes:{${tenantHash(tenantId)}}:${streamId}`;
  }

  /** The tenant's byte ledger: bytes per retained stream and their total (`#`). */
  private bytes(tenantId: string): string {
    return `${this.namespace}sb:sse-bytes:{${tenantHash(tenantId)}}`;
  }
}

function tenantHash(tenantId: string): string {
  return createHash('sha256').update(tenantId).digest('base64url').slice(0, 16);
}
