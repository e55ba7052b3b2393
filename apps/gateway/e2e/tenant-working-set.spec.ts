/**
 * The gateway's tenant working set (issue 49 item 1), through the HTTP edge, against a real
 * Redis namespace seeded with `sb:catalog:<tenant>` documents and a loopback stand-in for the
 * registry's `/internal/catalogs/<id>` (the fallback when Redis lacks a tenant): nothing loaded
 * at boot, a cold tenant fetched once however many requests wait for it, eviction under the byte
 * budget, a `catalog:changed` racing a cold fetch, and bounded negative caching under an id scan.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildTenantDocument, catalogRedisKeys, tenantSettingsSchema, type PublishedCatalog } from '@switchboard/catalog';
import { pollUntil } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { CATALOG_SOURCE } from '../src/catalog-source/catalog-source';
import type { LazyRegistryCatalogSource } from '../src/catalog-source/lazy-registry-catalog-source';
import { GatewayRuntime } from '../src/gateway-runtime';
import { POST_HEADERS, startGateway, type TestGateway } from './support/harness';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `e2e-workset-${randomBytes(4).toString('hex')}:`;
const keys = catalogRedisKeys(NS);
const SEEDED = 300;
const FETCH_PER_SEC = 50;
const NEGATIVE_MAX = 200;

const admin = new Redis(REDIS_URL, { lazyConnect: true });
let gw: TestGateway;
let runtime: GatewayRuntime;
let source: LazyRegistryCatalogSource;
let registry: Server;
/** Registry requests held open by a test (the fetch stays in flight until it answers them). */
const held = new Map<string, (doc: PublishedCatalog | undefined) => void>();
const registryDocs = new Map<string, PublishedCatalog>();
let registryCalls = 0;

/** A tenant document whose tools carry `pad` bytes of description each (its size drives the byte estimate). */
function doc(id: string, tools: number, version = 'v1', pad = 0): PublishedCatalog {
  const route = { kind: 'upstream' as const, serverId: 's', url: 'http://127.0.0.1:9/mcp', upstreamName: 'x' };
  return buildTenantDocument(tenantSettingsSchema.parse({ id, name: id }), {
    tenantId: id,
    version: `${id}-${version}`,
    server: { name: id, version: '1' },
    tools: Array.from({ length: tools }, (_, i) => ({
      definition: { name: `${version}_tool_${i}`, description: 'd'.repeat(pad), inputSchema: { type: 'object' as const } },
      route: { ...route, upstreamName: `tool_${i}` },
    })),
    resources: [],
    resourceTemplates: [],
    prompts: [],
  });
}

async function publish(d: PublishedCatalog, announce = true): Promise<void> {
  await admin.set(keys.catalog(d.id), JSON.stringify(d));
  await admin.sadd(keys.tenants, d.id);
  if (announce) await admin.publish(keys.channel, JSON.stringify({ tenantId: d.id }));
}

async function toolsList(tenant: string): Promise<{ status: number; tools: string[] }> {
  const res = await gw.inject({
    method: 'POST',
    url: `/t/${tenant}/mcp`,
    headers: { ...POST_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  if (res.statusCode !== 200) return { status: res.statusCode, tools: [] };
  const body = res.json<{ result: { tools: { name: string }[] } }>();
  return { status: 200, tools: body.result.tools.map((t) => t.name) };
}

function serveRegistry(req: IncomingMessage, res: ServerResponse): void {
  registryCalls++;
  const id = decodeURIComponent(/^\/internal\/catalogs\/([^/?]+)$/.exec(req.url ?? '')?.[1] ?? '');
  const answer = (d: PublishedCatalog | undefined) => {
    held.delete(id);
    res.statusCode = d ? 200 : 404;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(d ?? { error: 'not_found' }));
  };
  if (id.startsWith('held-')) held.set(id, answer);
  else answer(registryDocs.get(id));
}

beforeAll(async () => {
  await admin.connect();
  registry = createServer(serveRegistry);
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  const pipeline = admin.pipeline();
  for (let i = 0; i < SEEDED; i++) pipeline.set(keys.catalog(`seed-${i}`), JSON.stringify(doc(`seed-${i}`, 3)));
  await pipeline.exec();
  await publish(doc('herd', 3), false);
  for (let i = 0; i < 12; i++) await publish(doc(`big-${i}`, 30, 'v1', 8_000), false);
  gw = await startGateway({
    tenants: [],
    env: {
      CATALOG_SOURCES: 'registry',
      REDIS_URL,
      REDIS_NAMESPACE: NS,
      REGISTRY_URL: `http://127.0.0.1:${(registry.address() as AddressInfo).port}`,
      INTERNAL_TOKEN: 'test-internal-token',
      LIMITS_ENABLED: 'false',
      USAGE_ENABLED: 'false',
      GATEWAY_TENANT_CACHE_MB: '1',
      GATEWAY_TENANT_FETCH_PER_SEC: String(FETCH_PER_SEC),
      GATEWAY_TENANT_NEGATIVE_MAX: String(NEGATIVE_MAX),
      REGISTRY_RESYNC_MS: '0',
    },
  });
  runtime = gw.app.get(GatewayRuntime);
  source = gw.app.get<LazyRegistryCatalogSource>(CATALOG_SOURCE);
});

afterAll(async () => {
  for (const answer of held.values()) answer(undefined);
  await gw?.close();
  registry.closeAllConnections();
  await new Promise((resolve) => registry.close(resolve));
  const found = await admin.keys(`${NS}*`);
  if (found.length > 0) await admin.del(...found);
  admin.disconnect();
});

describe('tenant working set', () => {
  it('loads no tenant at boot, fetches one on its first request, then serves it from memory', async () => {
    expect(runtime.directory.size).toBe(0);
    // Ready without any tenant held: holding none is the idle state of a lazy replica.
    expect((await gw.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready', tenants: 0 });
    const before = { ...runtime.cold!.stats };
    const first = await toolsList('seed-7');
    expect(first).toEqual({ status: 200, tools: ['v1_tool_0', 'v1_tool_1', 'v1_tool_2'] });
    expect(runtime.directory.stats.resident).toBe(1);
    const hits = runtime.directory.stats.hits;
    for (let i = 0; i < 5; i++) expect((await toolsList('seed-7')).status).toBe(200);
    expect(runtime.cold!.stats.fetches - before.fetches).toBe(1);
    expect(runtime.directory.stats.hits - hits).toBe(5);
  });

  it('serves N concurrent first requests for a cold tenant with one fetch', async () => {
    const fetches = runtime.cold!.stats.fetches;
    const redisCalls = source.calls.redis;
    const answers = await Promise.all(Array.from({ length: 40 }, () => toolsList('herd')));
    expect(answers.every((a) => a.status === 200 && a.tools.length === 3)).toBe(true);
    expect(runtime.cold!.stats.fetches - fetches).toBe(1);
    expect(source.calls.redis - redisCalls).toBe(1);
    expect(runtime.cold!.stats.joined).toBeGreaterThanOrEqual(39);
  });

  it('keeps fetched tenants within the byte budget, evicting the least recently used but not a hot one', async () => {
    const budget = 1024 * 1024;
    const evictions = runtime.directory.stats.evictions;
    expect((await toolsList('big-0')).status).toBe(200);
    for (let i = 1; i < 12; i++) {
      expect((await toolsList(`big-${i}`)).status).toBe(200);
      expect(runtime.directory.stats.bytes).toBeLessThanOrEqual(budget);
      expect((await toolsList('big-0')).status).toBe(200); // the hot tenant, used between every cold one
    }
    expect(runtime.directory.stats.evictions - evictions).toBeGreaterThanOrEqual(6);
    expect(runtime.directory.target('big-0')).toBeDefined();
    expect(runtime.directory.target('big-1')).toBeUndefined();
    expect(source.sizeOf('big-1')).toBeUndefined(); // the source stops watching what the gateway dropped
    // An evicted tenant comes back on its next request.
    expect((await toolsList('big-1')).tools).toHaveLength(30);
  });

  it('does not keep the version a cold fetch read when catalog:changed arrives while it is in flight', async () => {
    // Redis lacks the tenant, so the fetch goes to the registry, which holds the request open.
    const id = 'held-race';
    const pending = toolsList(id);
    await pollUntil('the registry was asked for the tenant', () => held.has(id));
    const changed = runtime.cold!.stats.changedInFlight;
    await publish(doc(id, 2, 'v2'));
    await pollUntil('the gateway heard catalog:changed', () => runtime.cold!.stats.changedInFlight > changed);
    held.get(id)?.(doc(id, 1, 'v1')); // the registry answers with the version from before the change
    expect(await pending).toEqual({ status: 200, tools: ['v2_tool_0', 'v2_tool_1'] });
    expect(runtime.directory.tenant(id)?.snapshot.version).toBe(`${id}-v2`);
    expect(runtime.cold!.stats.restarted).toBeGreaterThanOrEqual(1);
  });

  it('refetches a held tenant on catalog:changed', async () => {
    expect((await toolsList('seed-8')).tools).toEqual(['v1_tool_0', 'v1_tool_1', 'v1_tool_2']);
    await publish(doc('seed-8', 1, 'v2'));
    await pollUntil('the new version is served', async () => (await toolsList('seed-8')).tools.join() === 'v2_tool_0');
  });

  it('serves the server card and llms.txt of a cold tenant by fetching it, and 404s an unknown one', async () => {
    const card = await gw.inject({ method: 'GET', url: '/t/seed-20/.well-known/mcp.json' });
    expect(card.statusCode).toBe(200);
    expect(card.json<{ title: string }>().title).toBe('seed-20');
    expect((await gw.inject({ method: 'GET', url: '/t/seed-21/llms.txt' })).body).toContain('# seed-21');
    expect((await gw.inject({ method: 'GET', url: '/t/nobody-here/.well-known/mcp.json' })).statusCode).toBe(404);
    expect((await gw.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/t/seed-22/mcp' })).statusCode).toBe(404);
  });

  it('answers unknown ids 404 from a bounded negative cache, and a publish of the id ends it', async () => {
    const redisCalls = source.calls.redis;
    expect((await toolsList('ghost')).status).toBe(404);
    for (let i = 0; i < 20; i++) expect((await toolsList('ghost')).status).toBe(404);
    expect(source.calls.redis - redisCalls).toBe(1);
    expect(runtime.cold!.stats.negativeHits).toBeGreaterThanOrEqual(20);
    // Ids the registry never issues cost no look-up at all.
    for (const bad of ['Upper', 'a.b', 'x'.repeat(64), '-lead', 'sp%20ace']) expect((await toolsList(bad)).status).toBe(404);
    expect(source.calls.redis - redisCalls).toBe(1);
    await publish(doc('ghost', 1));
    await pollUntil('the published tenant is served', async () => (await toolsList('ghost')).status === 200);
  });

  it('survives a scan of random ids: real tenants stay, Redis and registry calls stay bounded', async () => {
    const resident = ['seed-1', 'seed-2', 'seed-3'];
    for (const id of resident) expect((await toolsList(id)).status).toBe(200);
    const evictions = runtime.directory.stats.evictions;
    const redisCalls = source.calls.redis;
    const registryBefore = registryCalls;
    const started = Date.now();
    const SCAN = 2_000;
    for (let batch = 0; batch < SCAN; batch += 100) {
      const ids = Array.from({ length: 100 }, () => `scan-${randomBytes(6).toString('hex')}`);
      const answers = await Promise.all(ids.map(toolsList));
      expect(answers.every((a) => a.status === 404)).toBe(true);
    }
    const seconds = (Date.now() - started) / 1000;
    const redisUsed = source.calls.redis - redisCalls;
    // The cold rate's burst plus its refill over the scan's duration, far below one call per id.
    expect(redisUsed).toBeLessThanOrEqual(2 * FETCH_PER_SEC + Math.ceil(seconds * FETCH_PER_SEC) + 1);
    expect(redisUsed).toBeLessThan(SCAN / 2);
    // Registry look-ups for ids Redis lacks: the source's miss budget (20/s, burst 40).
    expect(registryCalls - registryBefore).toBeLessThanOrEqual(40 + Math.ceil(seconds * 20) + 1);
    expect(runtime.cold!.stats.shed).toBeGreaterThan(0);
    expect(runtime.cold!.negativeSize).toBeLessThanOrEqual(NEGATIVE_MAX);
    expect(runtime.directory.stats.evictions).toBe(evictions);
    for (const id of resident) expect(runtime.directory.target(id)).toBeDefined();
    // Held tenants are answered from memory throughout.
    const fetches = runtime.cold!.stats.fetches;
    for (const id of resident) expect((await toolsList(id)).status).toBe(200);
    expect(runtime.cold!.stats.fetches).toBe(fetches);
  });

  it('exports the working set on /metrics', async () => {
    const text = (await gw.inject({ method: 'GET', url: '/metrics' })).body;
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('gateway_tenants_resident')).toBe(runtime.directory.stats.resident);
    expect(value('gateway_tenants_resident_bytes')).toBeGreaterThan(0);
    for (const counter of ['hits', 'misses', 'evictions', 'fetches', 'negative_hits', 'shed']) {
      expect(value(`gateway_tenants_${counter}_total`)).toBeGreaterThan(0);
    }
    expect(value('gateway_tenants_negative')).toBeGreaterThan(0);
  });
});
