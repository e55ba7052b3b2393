/**
 * Rate limits across replicas (issue 13, acceptance 1): two gateways on one Redis enforce one
 * per-tool budget (the sum of accepted calls equals the bucket), another tool and another
 * tenant are unaffected, the refusal is the documented −32029 with a correct retry time, a
 * plan change reaches both gateways like a publish, the daily quota names its reset, and
 * with the limiter's Redis stopped mid-run each replica limits on its own — no 5xx.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { catalogRedisKeys, type PublishedCatalog, type TenantRatePlan } from '@switchboard/catalog';
import { GatewayRuntime } from '../src/gateway-runtime';
import {
  LEGACY,
  POST_HEADERS,
  finalMessage,
  httpPost,
  modernHeaders,
  modernRequest,
  startGateway,
  waitFor,
  type Json,
  type TestGateway,
} from './support/harness';
import { TestUpstream } from '@switchboard/testing';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ns = `test:limits-e2e:${randomUUID()}:`;
const keys = catalogRedisKeys(ns);
let redis: Redis;
let upstream: TestUpstream;
let gwA: TestGateway;
let gwB: TestGateway;

function catalog(id: string, rate: TenantRatePlan | undefined, version = 'v1'): PublishedCatalog {
  const route = (upstreamName: string) => ({ kind: 'upstream' as const, serverId: 'alpha', url: upstream.url, upstreamName });
  return {
    id,
    name: id,
    origins: [],
    hosts: [],
    surfaceRules: {},
    ...(rate ? { limits: { rate } } : {}),
    snapshot: {
      tenantId: id,
      version,
      server: { name: id, version: '1.0.0' },
      tools: [
        {
          definition: {
            name: 'shout',
            description: 'Upper-cases',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          },
          route: route('shout'),
        },
        { definition: { name: 'whoami', description: 'Who', inputSchema: { type: 'object' } }, route: route('whoami') },
      ],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    },
  };
}

async function publish(c: PublishedCatalog): Promise<void> {
  await redis.set(keys.catalog(c.id), JSON.stringify(c));
  await redis.sadd(keys.tenants, c.id);
  await redis.publish(keys.channel, JSON.stringify({ tenantId: c.id }));
}

function gatewayEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    CATALOG_SOURCES: 'registry',
    REDIS_URL,
    REDIS_NAMESPACE: ns,
    REGISTRY_RESYNC_MS: '0',
    UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ...extra,
  };
}

let nextId = 1;
async function call(gw: TestGateway, tenant: string, name: string): Promise<{ status: number; headers: Headers; message: Json }> {
  const res = await httpPost(
    gw.mcpUrl(tenant),
    { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: { text: 'hi' } } },
    { ...POST_HEADERS, 'mcp-protocol-version': LEGACY },
  );
  return { status: res.status, headers: res.headers, message: finalMessage(res) };
}

const isAccepted = (r: { message: Json }) => r.message.result !== undefined && (r.message.result as Json).isError !== true;
const rpcError = (r: { message: Json }) => r.message.error as { code: number; message: string; data: Json } | undefined;

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  upstream = await TestUpstream.start({ stateful: false, name: 'alpha' });
  await publish(catalog('lima', { tools: { shout: { requestsPerSecond: 0.05, burst: 5 } } }));
  await publish(catalog('limb', { tools: { shout: { requestsPerSecond: 0.05, burst: 5 } } }));
  await publish(catalog('limq', { dailyCalls: 3 }));
  [gwA, gwB] = await Promise.all([
    startGateway({ tenants: [], env: gatewayEnv(), listen: true }),
    startGateway({ tenants: [], env: gatewayEnv(), listen: true }),
  ]);
});

afterAll(async () => {
  await Promise.all([gwA?.close(), gwB?.close()]);
  await upstream?.stop();
  const left = await redis.keys(`${ns}*`);
  if (left.length > 0) await redis.del(...left);
  redis.disconnect();
});

describe('two gateways on one Redis', () => {
  it('hold one per-tool budget: of 20 parallel calls over both, exactly the burst (5) is accepted', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? gwA : gwB, 'lima', 'shout')));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter(isAccepted)).toHaveLength(5);
    const refused = results.filter((r) => !isAccepted(r));
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      const error = rpcError(r);
      expect(error).toMatchObject({ code: -32029, data: { limit: 'tool' } });
      // One token every 20 s, and the bucket was just emptied: the next one is ≤ 20 s away, and well over 10.
      const seconds = error?.data.retryAfterSeconds as number;
      expect(seconds).toBeGreaterThan(10);
      expect(seconds).toBeLessThanOrEqual(20);
      expect(r.headers.get('retry-after')).toBe(String(seconds));
      expect(error?.message).toContain(`retry after ${seconds} s`);
    }
  });

  it('leave another tool of the tenant and the same tool of another tenant unaffected', async () => {
    const other = await Promise.all([call(gwA, 'lima', 'whoami'), call(gwB, 'lima', 'whoami')]);
    expect(other.every(isAccepted)).toBe(true);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => call(i % 2 ? gwA : gwB, 'limb', 'shout')));
    expect(results.every(isAccepted)).toBe(true);
  });

  it('answer the stateless 2026-07-28 era with HTTP 429, Retry-After and the same error body', async () => {
    const body = modernRequest(nextId++, 'tools/call', { name: 'shout', arguments: { text: 'x' } });
    const res = await httpPost(gwA.mcpUrl('lima'), body, modernHeaders('tools/call', 'shout'));
    expect(res.status).toBe(429);
    const error = rpcError({ message: finalMessage(res) });
    expect(error).toMatchObject({ code: -32029, data: { limit: 'tool' } });
    expect(res.headers.get('retry-after')).toBe(String(error?.data.retryAfterSeconds));
  });

  it('take a new plan like a publish, on every gateway', async () => {
    await publish(catalog('limb', { tools: { shout: { requestsPerSecond: 0.05, burst: 1 } }, tenant: { requestsPerSecond: 7, burst: 9 } }));
    for (const gw of [gwA, gwB]) {
      const limits = gw.app.get(GatewayRuntime).limits;
      await waitFor('the new plan', () => (limits.planOf('limb').tenant.burst === 9 ? true : undefined));
      expect(limits.planOf('limb').tools.get('shout')).toEqual({ requestsPerSecond: 0.05, burst: 1 });
    }
  });

  it('refuse past the daily quota with the same shape and the reset time (next UTC midnight)', async () => {
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await call(i % 2 ? gwA : gwB, 'limq', 'whoami'));
    expect(results.map(isAccepted)).toEqual([true, true, true, false, false]);
    const error = rpcError(results[3]);
    const now = new Date();
    const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
    expect(error).toMatchObject({ code: -32029, data: { limit: 'daily', resetAt: midnight, quota: 3 } });
    const seconds = error?.data.retryAfterSeconds as number;
    expect(Math.abs(seconds - (Date.parse(midnight) - Date.now()) / 1000)).toBeLessThan(60);
    expect(error?.message).toContain(`resets at ${midnight}`);
  });
});

describe('the limiter Redis stopped mid-run', () => {
  let port: number;
  let server: ChildProcess | undefined;
  let gw1: TestGateway;
  let gw2: TestGateway;

  async function startRedis(): Promise<void> {
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    await waitFor('private redis-server', async () =>
      (await probe
        .connect()
        .then(() => probe.ping())
        .catch(() => undefined)) === 'PONG'
        ? true
        : undefined,
    );
    probe.disconnect();
  }

  async function stopRedis(): Promise<void> {
    const s = server;
    server = undefined;
    if (!s || s.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      s.once('exit', () => resolve());
      s.kill('SIGKILL');
    });
  }

  beforeAll(async () => {
    port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    await startRedis();
    await publish(catalog('limr', { tools: { shout: { requestsPerSecond: 0.05, burst: 4 } } }));
    const env = gatewayEnv({ LIMITS_REDIS_URL: `redis://127.0.0.1:${port}` });
    [gw1, gw2] = await Promise.all([startGateway({ tenants: [], env, listen: true }), startGateway({ tenants: [], env, listen: true })]);
    await waitFor('shared limiting', () => (gw1.app.get(GatewayRuntime).limits.mode === 'shared' ? true : undefined));
  });

  afterAll(async () => {
    await Promise.all([gw1?.close(), gw2?.close()]);
    await stopRedis();
  });

  it('limits per replica (never unlimited, never a 5xx), then shares again once Redis is back', async () => {
    // Shared: 2 of the 4 tokens spent through gateway 1.
    expect((await Promise.all([call(gw1, 'limr', 'shout'), call(gw1, 'limr', 'shout')])).every(isAccepted)).toBe(true);
    await stopRedis();
    const during = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? gw1 : gw2, 'limr', 'shout')));
    expect(during.every((r) => r.status === 200)).toBe(true);
    // Each replica now has its own full bucket of 4: at most 8 accepted, the rest the usual refusal.
    const accepted = during.filter(isAccepted).length;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(8);
    for (const r of during.filter((x) => !isAccepted(x))) expect(rpcError(r)).toMatchObject({ code: -32029, data: { limit: 'tool' } });
    expect(gw1.app.get(GatewayRuntime).limits.mode).toBe('local');
    await startRedis();
    // Back to shared (the fresh Redis has an empty bucket: 4 tokens for both replicas together).
    await waitFor('shared again', async () => {
      await call(gw1, 'limr', 'whoami');
      await call(gw2, 'limr', 'whoami');
      return gw1.app.get(GatewayRuntime).limits.mode === 'shared' && gw2.app.get(GatewayRuntime).limits.mode === 'shared'
        ? true
        : undefined;
    });
    const after = await Promise.all(Array.from({ length: 12 }, (_, i) => call(i % 2 ? gw1 : gw2, 'limr', 'shout')));
    expect(after.filter(isAccepted)).toHaveLength(4);
  });
});
