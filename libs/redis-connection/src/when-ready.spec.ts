import { createRedis } from './create-redis';
import { whenReady } from './when-ready';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('whenReady', () => {
  it('resolves true once the client connects, false when it does not within the bound', async () => {
    const client = createRedis(REDIS_URL, { lazyConnect: true });
    try {
      expect(await whenReady(client, 20)).toBe(false);
      const waiting = whenReady(client, 10_000);
      await client.connect();
      expect(await waiting).toBe(true);
      expect(await whenReady(client, 0)).toBe(true);
      expect(client.listenerCount('ready')).toBe(0);
    } finally {
      client.disconnect();
    }
  });
});
