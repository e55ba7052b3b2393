import { isCluster, type RedisClient } from './redis-client';

/**
 * MGET that works on every topology: one MGET on a single server or Sentinel; on a Cluster
 * (where MGET must stay in one slot) one GET per key, which ioredis routes to each key's
 * node and, with auto-pipelining, batches per node. Values come back in `keys` order.
 */
export async function mgetAcrossSlots(client: RedisClient, keys: readonly string[]): Promise<(string | null)[]> {
  if (keys.length === 0) return [];
  if (!isCluster(client)) return client.mget(...keys);
  return Promise.all(keys.map((k) => client.get(k)));
}
