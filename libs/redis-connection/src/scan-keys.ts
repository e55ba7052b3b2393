import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from './redis-client';

/**
 * Every key matching `pattern`, on every topology: SCAN on a single server or Sentinel
 * master; on a Cluster, SCAN on each master node (a key lives on exactly one). Bounded at
 * `maxKeys` (default 100,000) so a huge keyspace cannot run it forever.
 */
export async function scanKeys(client: RedisClient, pattern: string, maxKeys = 100_000): Promise<string[]> {
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    for (let i = 0; i < 100_000 && found.length < maxKeys; i += 1) {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      found.push(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  }
  return found.slice(0, maxKeys);
}
