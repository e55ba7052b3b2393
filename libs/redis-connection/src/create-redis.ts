import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl } from './parse-redis-url';
import type { RedisClient } from './redis-client';

/**
 * The one way the services open Redis. `url` is REDIS_URL (see `parseRedisUrl`): a single
 * server, a Sentinel-managed master (ioredis asks the Sentinels for the master, follows
 * `+switch-master` and reconnects on READONLY, so a failover costs a reconnect), or a Redis
 * Cluster (ioredis follows MOVED/ASK; the per-connection `options` apply to every node).
 * `options` are the caller's usual ioredis settings; `retryStrategy` also becomes the
 * Cluster's `clusterRetryStrategy`, and `enableOfflineQueue` / `lazyConnect` /
 * `enableAutoPipelining` move to the Cluster level where they belong.
 */
export function createRedis(url: string, options: RedisOptions = {}): RedisClient {
  const target = parseRedisUrl(url);
  if (target.kind === 'single') return new Redis(url, options);
  if (target.kind === 'sentinel') {
    return new Redis({
      ...options,
      sentinels: target.sentinels,
      name: target.name,
      db: target.db,
      role: 'master',
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.sentinelUsername ? { sentinelUsername: target.sentinelUsername } : {}),
      ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
      ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
      // Learn of a failover from the Sentinels' +switch-master at once, not at the next error.
      failoverDetector: true,
      // A demoted master answers writes with READONLY until its clients are dropped: reconnect (to the new master) and resend.
      reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
      // Sentinels that do not answer are skipped quickly; the next one is asked.
      sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    });
  }
  const { enableOfflineQueue, lazyConnect, enableAutoPipelining, retryStrategy, ...perNode } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: {
      ...perNode,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(enableAutoPipelining !== undefined ? { enableAutoPipelining } : {}),
    clusterRetryStrategy: (times) => (retryStrategy ? (retryStrategy(times) ?? null) : Math.min(times * 100, 2_000)),
    // Writes and reads go to masters: the services read their own writes (catalog publish → serve).
    scaleReads: 'master',
    slotsRefreshTimeout: 2_000,
  };
  return new Cluster(target.nodes, clusterOptions);
}
