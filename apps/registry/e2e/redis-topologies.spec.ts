// Issue 19 item 8, end to end with built processes (run `npx tsc -b tsconfig.build.json` first):
// the registry and a gateway with REDIS_URL naming a real local Redis Sentinel set and a real
// local Redis Cluster (started by the test on free loopback ports). On each: a discovery runs
// as a BullMQ job, a publish reaches the gateway (snapshot + `catalog:changed`, the periodic
// re-sync off so only pub/sub can deliver the second one), the shared limiter refuses past a
// tenant's plan with its keys in Redis, usage flows through the stream to the registry. On the
// Sentinel set, a SENTINEL FAILOVER, after which a pushed document change reaches the gateway,
// the limiter decides in Redis again and discovery is enqueued.
import { createRedis, scanKeys, type RedisClient } from '@switchboard/redis-connection';
import { startLocalCluster, startLocalSentinel } from '../../../libs/redis-connection/e2e/support/local-topologies';
import {
  api,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startGateway,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(180_000);

type Json = Record<string, unknown>;
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

interface Topology {
  url: string;
  output(): string;
  stop(): Promise<void>;
  failover?: () => Promise<{ from: number; to: number }>;
}

const topologies: Array<[string, () => Promise<Topology>]> = [
  ['Redis Sentinel', startLocalSentinel],
  ['Redis Cluster', startLocalCluster],
];

describe.each(topologies)('registry + gateway on a %s', (_name, start) => {
  const env = testEnv();
  let topology: Topology;
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let crm: TestUpstream;
  let key: string;
  let redis: RedisClient;
  let nextId = 1;

  const rpc = async (method: string, params?: Json) => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) }),
    });
    return {
      status: res.status,
      body: (await res.json().catch(() => ({}))) as {
        result?: Json & { tools?: Array<{ name: string }> };
        error?: { code: number; data?: Json };
      },
    };
  };
  const served = async () =>
    (await rpc('tools/list')).body.result?.tools
      ?.map((t) => t.name)
      .sort()
      .join(',');
  const publish = async (...names: string[]) => {
    const res = await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: names.map((name) => ({ name })) });
    expect(res.status).toBe(200);
    expect(res.body.redis).toBe('ok');
  };
  const diagnose = (err: unknown): never => {
    throw new Error(
      `${(err as Error).message}\n--- registry\n${registry?.output().slice(-3_000)}\n--- gateway\n${gateway?.output().slice(-3_000)}\n--- redis\n${topology?.output().slice(-2_000)}`,
    );
  };

  beforeAll(async () => {
    topology = await start();
    redis = createRedis(topology.url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    db = await createDatabase();
    crm = await startUpstream('crm', [
      { name: 'lookup', annotations: READ_ONLY_HINTS },
      { name: 'search', annotations: READ_ONLY_HINTS },
    ]);
    registry = await startRegistry(env, db.url, { REDIS_URL: topology.url, LOG_LEVEL: 'info' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    // The discovery is a BullMQ job on this Redis (its prefix hash-tagged for the Cluster).
    const server = await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: crm.url }).catch(diagnose);
    expect(server.health).toBe('ok');
    await publish('lookup');
    gateway = await startGateway(env, registry.url, {
      REDIS_URL: topology.url,
      REGISTRY_RESYNC_MS: '0',
      USAGE_FLUSH_MS: '50',
      LOG_LEVEL: 'info',
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await crm?.close();
    await db?.drop();
    redis?.disconnect();
    await topology?.stop();
  });

  it('serves a publish, and the next one arrives over catalog:changed', async () => {
    await until('first publication served', async () => (await served()) === 'lookup', 30_000).catch(diagnose);
    await publish('lookup', 'search');
    await until(
      'second publication served (pub/sub; periodic re-sync is off)',
      async () => (await served()) === 'lookup,search',
      30_000,
    ).catch(diagnose);
    expect((await rpc('tools/call', { name: 'search', arguments: { text: 'x' } })).body.result).toBeDefined();
  });

  it("enforces the tenant's plan in the shared limiter, whose keys are in this Redis", async () => {
    const put = await api(registry.url, key, 'PUT', '/v1/limits', { rate: { tools: { lookup: { requestsPerSecond: 0.02, burst: 2 } } } });
    expect(put.status).toBe(200);
    const refused = await until(
      'a -32029 past the burst',
      async () => {
        const r = await rpc('tools/call', { name: 'lookup', arguments: { text: 'probe' } });
        return r.body.error?.code === -32029 ? r.body.error : undefined;
      },
      30_000,
    ).catch(diagnose);
    expect(refused.data).toMatchObject({ limit: 'tool' });
    // Shared, not the per-replica fallback: the GCRA script wrote the tenant's hash-tagged keys.
    expect((await scanKeys(redis, `${env.namespace}rl:{acme}:*`)).length).toBeGreaterThan(0);
  });

  it('carries usage through the stream to the registry', async () => {
    const rows = await until(
      'usage drained',
      async () => {
        const res = await api(registry.url, key, 'GET', '/v1/usage?groupBy=tool');
        const list = res.body.usage as Json[] | undefined;
        return list?.some((r) => r.tool === 'search' && (r.calls as number) >= 1) ? list : undefined;
      },
      30_000,
    ).catch(diagnose);
    expect(rows.find((r) => r.tool === 'search')).toMatchObject({ server: 'crm' });
  });

  it('recovers from a failover (Sentinel only): pushes, serving, the shared limiter and discovery work on the new master', async () => {
    if (!topology.failover) {
      expect(topology.url).toMatch(/^redis-cluster:\/\//);
      return;
    }
    const { from, to } = await topology.failover();
    expect(to).not.toBe(from);
    // The limiter's keys so far are gone: any found later were written on the new master.
    for (const k of await scanKeys(redis, `${env.namespace}rl:{acme}:*`)) await redis.del(k);
    // The registry's publisher and the gateway's subscriber reconnect to the new master. A
    // settings change is pushed like a publish: a plan that now limits `search` too.
    const attempts: string[] = [];
    await until(
      'plan change pushed to the new master',
      async () => {
        const res = await api(registry.url, key, 'PUT', '/v1/limits', {
          rate: { tools: { lookup: { requestsPerSecond: 0.02, burst: 2 }, search: { requestsPerSecond: 0.02, burst: 1 } } },
        });
        attempts.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        return res.status === 200 && res.body.pushed === 'ok';
      },
      45_000,
    ).catch(diagnose);
    const refused = await until(
      'the post-failover document served (search limited now)',
      async () => {
        const r = await rpc('tools/call', { name: 'search', arguments: { text: 'after' } });
        return r.body.error?.code === -32029 ? r.body.error : undefined;
      },
      45_000,
    ).catch((err: Error) => diagnose(new Error(`${err.message} (pushes ${attempts.join(' | ')})`)));
    expect(refused.data).toMatchObject({ limit: 'tool' });
    // Decided in Redis again (shared), on the new master.
    await until(
      'limiter keys on the new master',
      async () => {
        await rpc('tools/call', { name: 'lookup', arguments: { text: 'probe' } });
        return (await scanKeys(redis, `${env.namespace}rl:{acme}:*`)).length > 0;
      },
      30_000,
    ).catch(diagnose);
    expect(await served()).toBe('lookup,search');
    const discover = await until(
      'discovery enqueued after the failover',
      async () => {
        const res = await api(registry.url, key, 'POST', '/v1/servers/crm/discover');
        return res.status === 202 && res.body.queued === true ? res.body : undefined;
      },
      45_000,
    ).catch(diagnose);
    expect(discover).toMatchObject({ queued: true });
    expect((await redis.call('ROLE')) as unknown[]).toContain('master');
  });
});
