import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { RedisUpstreamSessions } from './upstream-sessions';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const namespace = `spec-upstream-sessions-${randomBytes(4).toString('hex')}:`;
const admin = new Redis(REDIS_URL, { lazyConnect: true });
let replica1: RedisUpstreamSessions;
let replica2: RedisUpstreamSessions;

beforeAll(async () => {
  await admin.connect();
  replica1 = new RedisUpstreamSessions(REDIS_URL, namespace, pino({ level: 'silent' }));
  replica2 = new RedisUpstreamSessions(REDIS_URL, namespace, pino({ level: 'silent' }));
});

afterAll(async () => {
  const keys = await admin.keys(`${namespace}*`);
  if (keys.length > 0) await admin.del(...keys);
  await replica1.close();
  await replica2.close();
  await admin.quit();
});

describe('RedisUpstreamSessions', () => {
  it('keeps the first session offered for a key; a later offer gets that one', async () => {
    expect(await replica1.get('acme everything a')).toBeUndefined();
    expect(await replica1.claim('acme everything a', { id: 's1', protocolVersion: '2025-11-25' })).toEqual({
      id: 's1',
      protocolVersion: '2025-11-25',
    });
    expect(await replica2.claim('acme everything a', { id: 's2' })).toEqual({ id: 's1', protocolVersion: '2025-11-25' });
    expect(await replica2.get('acme everything a')).toEqual({ id: 's1', protocolVersion: '2025-11-25' });
    // Another key (another tenant, credential or capability set) shares nothing.
    expect(await replica2.get('globex everything a')).toBeUndefined();
  });

  it('forgets a session only while it is still the stored one', async () => {
    await replica1.claim('acme everything b', { id: 'old' });
    await replica1.forget('acme everything b', 'old');
    await replica2.claim('acme everything b', { id: 'new' });
    // A replica that met the old session's expiry late must not drop the new one.
    await replica1.forget('acme everything b', 'old');
    expect(await replica1.get('acme everything b')).toEqual({ id: 'new' });
  });

  it('does not store a session id longer than 256 characters (the upstream chooses it)', async () => {
    const long = 'x'.repeat(257);
    expect(await replica1.claim('acme everything c', { id: long })).toEqual({ id: long });
    expect(await replica1.get('acme everything c')).toBeUndefined();
    await replica1.claim('acme everything c', { id: 'x'.repeat(256) });
    expect((await replica2.get('acme everything c'))?.id).toHaveLength(256);
  });

  it('stores only a digest of the connection key (it holds the credential digest)', async () => {
    await replica1.claim('acme everything secret-digest', { id: 's' });
    const keys = await admin.keys(`${namespace}*`);
    expect(keys.some((k) => k.includes('secret-digest'))).toBe(false);
  });
});
