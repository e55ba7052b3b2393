// createRedis against a real local Sentinel set and a real local Redis Cluster: commands,
// MGET / SCAN across slots, pub/sub delivery, a BullMQ job (and why its prefix is hash-tagged),
// and a Sentinel failover the same clients survive.
import { createHook } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { bullPrefix } from '../src/bull-prefix';
import { createRedis } from '../src/create-redis';
import { mgetAcrossSlots } from '../src/mget-across-slots';
import { isCluster, type RedisClient } from '../src/redis-client';
import { scanKeys } from '../src/scan-keys';
import { pollUntil, startLocalCluster, startLocalSentinel, type LocalCluster, type LocalSentinel } from './support/local-topologies';

jest.setTimeout(120_000);

const opened: RedisClient[] = [];

/**
 * ioredis's disconnect arms a 2 s timer that destroys a socket the server has not closed. A
 * Sentinel client that reconnects (the failover) disconnects its failover detector's Sentinel
 * connections that way, and those timers run out even after the servers are gone. The
 * connections are internal to ioredis, so their timers are tracked here and each afterAll waits
 * for them: else they outlive the run and jest reports it did not exit.
 */
const socketTimers = new Set<number>();
createHook({
  init(id, type, _trigger, resource) {
    if (type === 'Timeout' && /still open, destroying it/.test(String((resource as { _onTimeout?: unknown })._onTimeout)))
      socketTimers.add(id);
  },
  destroy(id) {
    socketTimers.delete(id);
  },
}).enable();

/** createRedis for the test: errors are expected while servers stop; every client is closed at the end. */
function open(url: string, options: Parameters<typeof createRedis>[1]): RedisClient {
  const c = createRedis(url, options);
  c.on('error', () => undefined);
  opened.push(c);
  return c;
}

/**
 * Disconnects every client and resolves once each one's sockets are closed (a Redis client at
 * `end`; a Cluster at `close`, which it reaches once every node client has ended). ioredis's
 * disconnect only half-closes a socket and arms a timer that destroys it if the server does not
 * close its side: stopping the servers right after disconnect leaves those timers running.
 */
async function closeOpened(): Promise<void> {
  await Promise.all(
    opened.splice(0).map(
      (c) =>
        new Promise<void>((resolve) => {
          const closed = () => c.status === 'end' || (isCluster(c) && c.status === 'close');
          if (closed()) return resolve();
          const check = () => closed() && resolve();
          c.on('close', check);
          c.on('end', check);
          if (c.status !== 'disconnecting') c.disconnect();
        }),
    ),
  );
}

async function ready(client: RedisClient): Promise<void> {
  await pollUntil('client ready', () => client.status === 'ready', 20_000, 50);
}

/** Keys that hash to different slots (no tag), plus their values. */
function spreadKeys(ns: string): string[] {
  return Array.from({ length: 12 }, (_, i) => `${ns}k${i}`);
}

async function exerciseCommands(client: RedisClient, ns: string): Promise<void> {
  const keys = spreadKeys(ns);
  for (const k of keys) await client.set(k, `v-${k}`);
  expect(await mgetAcrossSlots(client, [...keys, `${ns}absent`])).toEqual([...keys.map((k) => `v-${k}`), null]);
  expect((await scanKeys(client, `${ns}k*`)).sort()).toEqual([...keys].sort());
}

async function exercisePubSub(url: string, channel: string): Promise<void> {
  const sub = open(url, { maxRetriesPerRequest: null });
  const pub = open(url, { maxRetriesPerRequest: 1 });
  try {
    await Promise.all([ready(sub), ready(pub)]);
    const got: string[] = [];
    sub.on('message', (ch: string, m: string) => ch === channel && got.push(m));
    await sub.subscribe(channel);
    await pollUntil(
      'message delivered',
      async () => {
        await pub.publish(channel, 'hello');
        return got.includes('hello');
      },
      15_000,
      200,
    );
  } finally {
    sub.disconnect();
    pub.disconnect();
  }
}

async function exerciseBullJob(url: string, prefix: string): Promise<void> {
  const name = `q${randomUUID().slice(0, 8)}`;
  const queue = new Queue(name, { connection: open(url, { maxRetriesPerRequest: 1 }), prefix: bullPrefix(prefix) });
  const worker = new Worker(name, async (job) => ({ doubled: (job.data as { n: number }).n * 2 }), {
    connection: open(url, { maxRetriesPerRequest: null }),
    prefix: bullPrefix(prefix),
  });
  try {
    const job = await queue.add('double', { n: 21 });
    const done = await pollUntil(
      'job completed',
      async () => (await queue.getJob(job.id ?? ''))?.returnvalue as { doubled: number } | undefined,
      30_000,
      100,
    );
    expect(done).toEqual({ doubled: 42 });
  } finally {
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
}

describe('createRedis on a real Redis Cluster', () => {
  let cluster: LocalCluster;
  let client: RedisClient;
  const ns = `t:${randomUUID().slice(0, 8)}:`;

  beforeAll(async () => {
    cluster = await startLocalCluster();
    client = open(cluster.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    client.on('error', () => undefined);
    await ready(client);
  });

  afterAll(async () => {
    await closeOpened();
    await cluster?.stop();
    await pollUntil('ioredis socket timers run out', () => socketTimers.size === 0, 10_000, 50);
  });

  it('is a Cluster client whose keys spread over the three masters', async () => {
    expect(isCluster(client)).toBe(true);
    await exerciseCommands(client, ns);
    // The keys really are on several nodes: a plain MGET of them is refused.
    await expect(client.mget(...spreadKeys(ns))).rejects.toThrow(/CROSSSLOT|same slot/);
  });

  it('delivers pub/sub between two clients', async () => {
    await exercisePubSub(cluster.url, `${ns}chan`);
  });

  it('runs a BullMQ job under a hash-tagged prefix (and an untagged prefix cannot)', async () => {
    await exerciseBullJob(cluster.url, `tbull${randomUUID().slice(0, 6)}`);
    const raw = new Queue('untagged', {
      connection: open(cluster.url, { maxRetriesPerRequest: 1 }),
      prefix: `raw${randomUUID().slice(0, 6)}`,
    });
    try {
      await expect(raw.add('x', {})).rejects.toThrow(/CROSSSLOT|same slot/);
    } finally {
      await raw.close();
    }
  });
});

describe('createRedis through a real Redis Sentinel set', () => {
  let sentinel: LocalSentinel;
  let client: RedisClient;
  let sub: RedisClient;
  const ns = `t:${randomUUID().slice(0, 8)}:`;
  const got: string[] = [];

  beforeAll(async () => {
    sentinel = await startLocalSentinel();
    client = open(sentinel.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 2_000 });
    client.on('error', () => undefined);
    sub = open(sentinel.url, { maxRetriesPerRequest: null });
    sub.on('error', () => undefined);
    sub.on('message', (_ch: string, m: string) => got.push(m));
    await Promise.all([ready(client), ready(sub)]);
    await sub.subscribe(`${ns}chan`);
  });

  afterAll(async () => {
    await closeOpened();
    await sentinel?.stop();
    await pollUntil('ioredis socket timers run out', () => socketTimers.size === 0, 10_000, 50);
  });

  it('talks to the master the Sentinels name', async () => {
    expect(isCluster(client)).toBe(false);
    await exerciseCommands(client, ns);
    expect(String(await client.call('ROLE'))).toMatch(/^master/);
    await exercisePubSub(sentinel.url, `${ns}other`);
    await exerciseBullJob(sentinel.url, `tbull${randomUUID().slice(0, 6)}`);
  });

  it('follows a failover: the same clients write to the new master and keep their subscriptions', async () => {
    await client.set(`${ns}before`, '1');
    const { from, to } = await sentinel.failover();
    expect(to).not.toBe(from);
    // Writes succeed again (the demoted master answers READONLY or drops the connection; the client reconnects to the new one).
    await pollUntil(
      'write accepted after failover',
      async () => (await client.set(`${ns}after`, '2').catch(() => undefined)) === 'OK',
      30_000,
      100,
    );
    expect(await client.get(`${ns}before`)).toBe('1');
    const port = Number(((await client.call('CONFIG', 'GET', 'port')) as string[])[1]);
    expect(port).toBe(to);
    const pub = open(sentinel.url, { maxRetriesPerRequest: 1 });
    try {
      await ready(pub);
      await pollUntil(
        'subscriber hears the new master',
        async () => {
          await pub.publish(`${ns}chan`, 'after-failover');
          return got.includes('after-failover');
        },
        30_000,
        200,
      );
    } finally {
      pub.disconnect();
    }
  });
});
