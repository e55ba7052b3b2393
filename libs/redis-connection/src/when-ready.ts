import type { RedisClient } from './redis-client';

/**
 * Resolves true once `client` is ready (at once when it is), false after `timeoutMs`. A
 * subscriber that reconnects re-syncs what it may have missed; after a Sentinel failover its
 * companion command connection is usually reconnecting at that very moment, so the re-sync
 * waits for it rather than falling back to a source that cannot see every change.
 */
export function whenReady(client: RedisClient, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    timer.unref();
    client.once('ready', onReady);
  });
}
