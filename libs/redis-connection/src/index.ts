export * from './parse-redis-url';
export * from './redis-client';
export * from './create-redis';
export * from './bull-prefix';
export * from './mget-across-slots';
export * from './scan-keys';
export * from './redis-url-schema';
export * from './when-ready';
