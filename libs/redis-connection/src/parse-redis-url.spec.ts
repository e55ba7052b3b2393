import { parseRedisUrl } from './parse-redis-url';
import { redisUrlSchema } from './redis-url-schema';

describe('parseRedisUrl', () => {
  it('passes a single-server URL through', () => {
    expect(parseRedisUrl('redis://:pw@127.0.0.1:6379/2')).toEqual({ kind: 'single', url: 'redis://:pw@127.0.0.1:6379/2' });
    expect(parseRedisUrl('rediss://cache.example:6380')).toEqual({ kind: 'single', url: 'rediss://cache.example:6380' });
  });

  it('reads Sentinels, the master name, credentials and db', () => {
    expect(parseRedisUrl('redis-sentinel://app:s%40cret@s-0:26379,s-1,[::1]:26380/mymaster?db=3&sentinelPassword=spw')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's-0', port: 26379 },
        { host: 's-1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'mymaster',
      db: 3,
      username: 'app',
      password: 's@cret',
      sentinelPassword: 'spw',
      tls: false,
    });
  });

  it("accepts Lettuce's /<db>#<master> form and TLS", () => {
    expect(parseRedisUrl('rediss-sentinel://:pw@s-0:26379/1#cache')).toMatchObject({
      kind: 'sentinel',
      name: 'cache',
      db: 1,
      password: 'pw',
      tls: true,
    });
  });

  it('reads Cluster seed nodes', () => {
    expect(parseRedisUrl('redis-cluster://:pw@n-0:7000,n-1:7001,n-2')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'n-0', port: 7000 },
        { host: 'n-1', port: 7001 },
        { host: 'n-2', port: 6379 },
      ],
      password: 'pw',
      tls: false,
    });
  });

  it.each([
    ['http://x:6379', /unknown scheme/],
    ['localhost:6379', /must be a redis/],
    ['redis-sentinel://s-0:26379', /master name/],
    ['redis-sentinel://s-0:26379/0', /master name/],
    ['redis-sentinel://s-0:26379/m?db=99', /db must be/],
    ['redis-sentinel:///m', /names no host/],
    ['redis-cluster://n-0:7000/1', /takes no path/],
    ['redis-cluster://n-0:99999', /port out of range/],
    ['redis-cluster://n 0:7000', /is not host or host:port/],
    [`redis-cluster://${Array.from({ length: 40 }, (_, i) => `n${i}:7000`).join(',')}`, /more than 32 hosts/],
  ])('refuses %s with a message saying why', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('is the config schema: the problem is the message', () => {
    const bad = redisUrlSchema().safeParse('redis-sentinel://s-0:26379');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/master name/);
    expect(redisUrlSchema().safeParse('redis-cluster://n-0:7000').success).toBe(true);
  });
});
