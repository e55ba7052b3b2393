import { Cluster, type Redis } from 'ioredis';

/** Any client `createRedis` returns: one connection (single server or Sentinel) or a Cluster. */
export type RedisClient = Redis | Cluster;

/** True when `client` talks to a Redis Cluster (multi-key commands must then stay in one slot). */
export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}
