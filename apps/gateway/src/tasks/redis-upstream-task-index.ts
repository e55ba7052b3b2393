import { createRedis, type RedisClient } from '@switchboard/redis-connection';
import { UPSTREAM_TASK_INDEX_MAX, type UpstreamTaskIndex } from '@switchboard/mcp-http';
import type { Logger } from 'pino';

/**
 * Adds one handle to its tenant's index: drops expired entries, keeps the newest `max` (by
 * expiry), and keeps the key alive as long as its longest-lived entry.
 * KEYS: the tenant's sorted set. ARGV: now, expiresAt, member, max.
 */
const ADD = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1) end
local ttl = tonumber(ARGV[2]) - tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 0
`;

/**
 * The gateway's {@link UpstreamTaskIndex}: one sorted set per tenant
 * (`sb:utasks:{<tenant>}`, score = the handle's expiry, member `<caller>|<handle>`), so any
 * replica lists a caller's proxied tasks. Bounded at {@link UPSTREAM_TASK_INDEX_MAX} entries per
 * tenant (≈1 KB each) whatever its callers do, and the key expires with its last entry.
 */
export class RedisUpstreamTaskIndex implements UpstreamTaskIndex {
  private readonly redis: RedisClient;

  constructor(
    redisUrl: string,
    private readonly namespace: string,
    logger: Logger,
    private readonly max = UPSTREAM_TASK_INDEX_MAX,
  ) {
    // Connects at once; a command while Redis is away waits at most its timeout (the index is best-effort on add).
    this.redis = createRedis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
    this.redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'upstream task index: Redis error'));
  }

  async add(tenantId: string, caller: string, handle: string, expiresAtMs: number): Promise<void> {
    await this.redis.eval(ADD, 1, this.key(tenantId), Date.now(), expiresAtMs, `${caller}|${handle}`, this.max);
  }

  async list(tenantId: string, caller: string): Promise<string[]> {
    const key = this.key(tenantId);
    const prefix = `${caller}|`;
    const found: Array<{ handle: string; expiresAt: number }> = [];
    const now = Date.now();
    // The set holds at most `max` entries, so this scan is bounded; the caller's prefix is matched server-side.
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.zscan(key, cursor, 'MATCH', `${globEscape(prefix)}*`, 'COUNT', 500);
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const expiresAt = Number(flat[i + 1]);
        if (expiresAt > now) found.push({ handle: flat[i]!.slice(prefix.length), expiresAt });
      }
      cursor = next;
    } while (cursor !== '0');
    return found.sort((x, y) => y.expiresAt - x.expiresAt).map((e) => e.handle);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(tenantId: string): string {
    return `${this.namespace}sb:utasks:{${tenantId}}`;
  }
}

/** A caller key is base64url, but a glob must never read one of its characters as a pattern. */
function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
