// Chaos (issue 12): Redis loses everything (FLUSHALL, then a kill and an empty restart) while a
// gateway serves under load. Afterwards every tenant is served by the gateway started before and
// by one started after, the BullMQ schedulers are back, and a discovery asked for during the
// outage was recorded and runs once Redis returns. Private redis-server on a free port; the
// registry database is a fresh one on the shared Postgres (not touched by the fault).
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { bullPrefix } from '@switchboard/redis-connection';
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
  type Proc,
  type TestUpstream,
} from './support/harness';
import { poll, startPrivateRedis, type PrivateRedis } from './support/private-services';

jest.setTimeout(90_000);

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

async function toolNames(gateway: Proc, tenant: string): Promise<string[] | undefined> {
  const res = await fetch(`${gateway.url}/t/${tenant}/mcp`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  if (res.status !== 200) return undefined;
  const body = (await res.json()) as { result?: { tools: Array<{ name: string }> } };
  return body.result?.tools.map((t) => t.name).sort();
}

describe('chaos: Redis FLUSHALL + restart under load', () => {
  const env = testEnv();
  let redis: PrivateRedis;
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  const gateways: Proc[] = [];
  let crm: TestUpstream;
  let docs: TestUpstream;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    redis = await startPrivateRedis();
    db = await createDatabase();
    crm = await startUpstream('crm', [{ name: 'lookup_customer', annotations: READ_ONLY_HINTS }]);
    docs = await startUpstream('docs', [{ name: 'search_docs', annotations: READ_ONLY_HINTS }]);
    registry = await startRegistry(env, db.url, {
      REDIS_URL: redis.url,
      DISCOVERY_REFRESH_MS: '600000',
      REGISTRY_REDIS_VERIFY_MS: '2000',
      LOG_LEVEL: 'info',
    });
    for (const [tenant, up, tool] of [
      ['acme', crm, 'lookup_customer'],
      ['beta', docs, 'search_docs'],
    ] as const) {
      keys[tenant] = await createTenant(registry.url, env.operatorKey, tenant);
      await registerAndDiscover(registry.url, keys[tenant], { id: 'main', name: 'Main', url: up.url });
      const published = await api(registry.url, keys[tenant], 'POST', '/v1/publications', { serverId: 'main', items: [{ name: tool }] });
      expect(published.status).toBe(200);
    }
    // The load loops would trip the per-caller rate limit (issue 13): this test is about healing, not limits.
    gateways.push(
      await startGateway(env, registry.url, {
        REDIS_URL: redis.url,
        REGISTRY_RESYNC_MS: '2000',
        LOG_LEVEL: 'info',
        LIMITS_ENABLED: 'false',
      }),
    );
    await poll(
      'gateway 1 serves both tenants',
      async () => (await toolNames(gateways[0], 'acme'))?.length === 1 && (await toolNames(gateways[0], 'beta'))?.length === 1,
    );
  });

  afterAll(async () => {
    for (const g of gateways) await g.stop();
    await registry?.stop();
    await crm?.close();
    await docs?.close();
    await db?.drop();
    await redis?.stop();
  });

  it('serves every tenant again from gateways started before and after, with the schedulers and a pending discovery back', async () => {
    // Load on the gateway that was running before the fault: the data plane must not notice.
    let stop = false;
    const load = { ok: 0, failed: 0 };
    const loops = Array.from({ length: 4 }, async (_, i) => {
      while (!stop) {
        const names = await toolNames(gateways[0], i % 2 ? 'acme' : 'beta').catch(() => undefined);
        if (names?.length === 1) load.ok++;
        else load.failed++;
      }
    });

    await poll('load running', () => load.ok > 20);
    await redis.flushAll();
    await redis.kill();
    // Asked for while Redis is down: recorded in Postgres, and the API says so.
    const discover = await api(registry.url, keys.acme, 'POST', '/v1/servers/main/discover');
    expect(discover.status).toBe(202);
    expect(discover.body).toMatchObject({ queued: false, pending: true });
    expect(String(discover.body.reason)).toMatch(/recorded/);
    const restarted = Date.now();
    await redis.start();
    // The trigger: another tenant publishes into the empty Redis (old gateways then saw a non-empty, incomplete list).
    const republished = await api(registry.url, keys.beta, 'POST', '/v1/publish');
    expect(republished.status).toBe(200);

    const check = new Redis(redis.url);
    const catalogsBack = await poll('both catalogs back in Redis', async () =>
      (await check.exists(`${env.namespace}sb:catalog:acme`, `${env.namespace}sb:catalog:beta`)) === 2 ? Date.now() - restarted : false,
    );
    const queue = new Queue('registry-discovery', { connection: check, prefix: bullPrefix(env.queuePrefix) });
    queue.on('error', () => undefined);
    const schedulersBack = await poll('schedulers re-declared', async () => {
      const ids = (await queue.getJobSchedulers(0, 10)).map((s) => s.key).sort();
      return ids.join() === 'maintenance,refresh-all' ? Date.now() - restarted : false;
    });
    const discoveryRan = await poll('the pending discovery was enqueued and ran', async () => {
      const server = await api(registry.url, keys.acme, 'GET', '/v1/servers/main');
      const d = (server.body as { discovery?: { state?: string; jobId?: string } }).discovery;
      return d?.state === 'ok' && d.jobId ? Date.now() - restarted : false;
    });

    // A gateway started after the fault learns every tenant, not only the one published since.
    const startedAfter = Date.now();
    gateways.push(await startGateway(env, registry.url, { REDIS_URL: redis.url, REGISTRY_RESYNC_MS: '2000', LIMITS_ENABLED: 'false' }));
    const lateBoot = Date.now() - startedAfter;
    const lateGateway = await poll('gateway 2 serves both tenants', async () =>
      (await toolNames(gateways[1], 'acme'))?.join() === 'lookup_customer' &&
      (await toolNames(gateways[1], 'beta'))?.join() === 'search_docs'
        ? Date.now() - startedAfter
        : false,
    );
    for (const t of ['acme', 'beta']) expect(await toolNames(gateways[0], t)).toHaveLength(1);
    stop = true;
    await Promise.all(loops);
    await queue.close();
    check.disconnect();
    expect(registry.output()).toMatch(/reconciliation/);
    expect(registry.output()).toMatch(/discovery recorded while the queue was down is now enqueued/);
    console.log(
      `Redis FLUSHALL + restart: catalogs back ${catalogsBack} ms, schedulers back ${schedulersBack} ms, pending discovery done ${discoveryRan} ms after restart; ` +
        `gateway started afterwards listened after ${lateBoot} ms and served all tenants ${lateGateway} ms after its start; load on gateway 1: ${load.ok} ok, ${load.failed} failed`,
    );
    expect(load.failed).toBe(0);
  });
});
