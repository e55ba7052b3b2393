export { parseRedisUrl, REDIS_URL_SCHEMES, type RedisHostPort, type RedisTarget } from './parse-redis-url';
export { isCluster, type RedisClient } from './redis-client';
export { createRedis } from './create-redis';
export { bullPrefix } from './bull-prefix';
export { mgetAcrossSlots } from './mget-across-slots';
export { scanKeys } from './scan-keys';
export { redisUrlSchema } from './redis-url-schema';
export { whenReady } from './when-ready';
