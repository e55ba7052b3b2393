import { createRedis, type RedisClient } from '@switchboard/redis-connection';

/**
 * A Redis client for the limiter: commands fail at once instead of queueing while
 * disconnected and time out after `commandTimeoutMs`, so a Redis outage costs a request
 * at most that long before the per-replica fallback decides; auto-pipelining batches the
 * scripts of concurrent requests into one write. It keeps reconnecting in the background.
 */
export function limiterRedis(url: string, options: { commandTimeoutMs?: number } = {}): RedisClient {
  const redis = createRedis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    enableAutoPipelining: true,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    lazyConnect: false,
  });
  // Errors surface through commands (and the mode switch); an unhandled 'error' event would crash.
  redis.on('error', () => undefined);
  return redis;
}
