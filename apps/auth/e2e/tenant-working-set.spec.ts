/**
 * The auth service's lazy tenant working set (issue 49, AUTH_TENANT_LOADING=lazy, the default), over
 * HTTP against a real Redis namespace seeded with `sb:catalog:<tenant>` documents, a loopback
 * stand-in for the registry's `/internal/catalogs/<id>`, and Postgres: nothing read at boot, a
 * cold tenant's metadata, authorization and token endpoints served on first use, one read however
 * many requests wait, a bounded scan of unknown ids, a change (IdP switched) applied and purged
 * while held, eviction under a small budget, and its metrics; `eager` still reads every tenant at boot.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildTenantDocument, catalogRedisKeys, tenantSettingsSchema, type PublishedCatalog } from '@switchboard/catalog';
import type { LazyTenantDocumentFeed } from '@switchboard/tenant-config';
import { obtainTokens, pollUntil } from '@switchboard/testing';
import { Redis } from 'ioredis';
import { oidcIdpId } from '../src/users/subject';
import { INTERNAL_TOKEN, startAuth, type TestAuth } from './support/auth-harness';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `e2e-authset-${randomBytes(4).toString('hex')}:`;
const keys = catalogRedisKeys(NS);
const SEEDED = 200;
const CACHE_MAX = 8;
const FETCH_PER_SEC = 20;
const FORMER_IDP = 'https://former-idp.example.test';

const admin = new Redis(REDIS_URL, { lazyConnect: true });
let auth: TestAuth;
let feed: LazyTenantDocumentFeed;
let registry: Server;
const registryDocs = new Map<string, PublishedCatalog>();
const registryCalls = new Map<string, number>();
/** Registry answers held by a test (the read stays in flight until released). */
const held = new Map<string, () => void>();

function doc(id: string, version = 'v1', idp: Record<string, unknown> = { kind: 'local' }, connectors = {}): PublishedCatalog {
  return buildTenantDocument(tenantSettingsSchema.parse({ id, name: id, auth: { idp, connectors } }), {
    tenantId: id,
    version: `${id}-${version}`,
    server: { name: id, version: '1' },
    tools: [],
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

function serveRegistry(req: IncomingMessage, res: ServerResponse): void {
  const id = decodeURIComponent(/^\/internal\/catalogs\/([^/?]+)$/.exec(req.url ?? '')?.[1] ?? '');
  registryCalls.set(id, (registryCalls.get(id) ?? 0) + 1);
  const answer = () => {
    held.delete(id);
    const d = registryDocs.get(id);
    res.statusCode = d ? 200 : 404;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(d ?? { error: 'not_found' }));
  };
  if (id.startsWith('held-')) held.set(id, answer);
  else answer();
}

const metadata = (tenant: string) => fetch(`${auth.baseUrl}/.well-known/oauth-authorization-server/t/${tenant}`);
const subjects = async (tenant: string) =>
  (
    await auth.services.pool.query<{ subject: string }>(
      `SELECT subject FROM "${auth.schema}".vault_token WHERE tenant_id = $1 ORDER BY subject`,
      [tenant],
    )
  ).rows.map((r) => r.subject);

beforeAll(async () => {
  await admin.connect();
  for (let i = 0; i < SEEDED; i++) await publish(doc(`t-${i}`), false);
  registry = createServer(serveRegistry);
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  auth = await startAuth({
    tenants: [{ id: 'seeded-file', auth: {} }],
    env: {
      SWITCHBOARD_ENV: 'development',
      REDIS_URL,
      REDIS_NAMESPACE: NS,
      REGISTRY_INTERNAL_URL: `http://127.0.0.1:${(registry.address() as AddressInfo).port}`,
      // No AUTH_TENANT_LOADING: lazy is the default.
      AUTH_TENANT_CACHE_MAX: String(CACHE_MAX),
      AUTH_TENANT_FETCH_PER_SEC: String(FETCH_PER_SEC),
      AUTH_TENANT_NEGATIVE_MAX: '50',
      TENANT_RESYNC_MS: '0',
      LIMITS_KEY_PREFIX: `${NS}limits:`,
    },
  });
  feed = auth.lazyTenants as LazyTenantDocumentFeed;
}, 60_000);

afterAll(async () => {
  await auth?.close();
  for (const release of held.values()) release();
  await new Promise<void>((r) => registry?.close(() => r()));
  const found = await admin.keys(`${NS}*`);
  if (found.length > 0) await admin.del(...found);
  admin.disconnect();
});

describe('auth tenant working set (lazy)', () => {
  it('boots with every tenant in Redis and none read; a file tenant is served without a read', async () => {
    expect(feed).toBeDefined();
    expect(feed.residentCount).toBe(0);
    expect(feed.stats.fetches).toBe(0);
    expect(auth.services.tenants.all().map((t) => t.id)).toEqual(['seeded-file']);
    expect((await metadata('seeded-file')).status).toBe(200);
    expect(feed.stats.fetches).toBe(0);
  });

  it('serves a cold tenant on first use: metadata, then a whole authorization code flow and token', async () => {
    const res = await metadata('t-1');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { issuer: string }).issuer).toBe(`${auth.baseUrl}/t/t-1`);
    // t-2 is cold when its flow starts (registration is its first request).
    expect(auth.services.tenants.byId('t-2')).toBeUndefined();
    const tokens = await obtainTokens(`${auth.baseUrl}/t/t-2`);
    expect(tokens.body.access_token).toEqual(expect.any(String));
    // The token endpoint of a cold tenant answers as an OAuth endpoint (a client error), not 404.
    const token = await fetch(`${auth.baseUrl}/t/t-3/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody',
    });
    expect([400, 401]).toContain(token.status);
    expect(auth.services.tenants.byId('t-3')).toBeDefined();
  });

  it('reads a cold tenant once however many requests wait for it (the registry when Redis lacks it)', async () => {
    registryDocs.set('held-a', doc('held-a'));
    const joinedBefore = feed.stats.joined;
    const all = Promise.all(Array.from({ length: 12 }, () => metadata('held-a').then((r) => r.status)));
    await pollUntil('all requests wait on one read', () => held.has('held-a') && feed.stats.joined - joinedBefore >= 11);
    held.get('held-a')?.();
    expect(await all).toEqual(Array(12).fill(200));
    expect(registryCalls.get('held-a')).toBe(1);
  });

  it('applies a catalog:changed while held: an IdP switch purges what the former identities left', async () => {
    await publish(doc('t-50', 'v1', { kind: 'oidc', issuer: FORMER_IDP, clientId: 'c' }), false);
    expect((await metadata('t-50')).status).toBe(200);
    await auth.services.idpPurge.whenIdle();
    const formerSubject = `t-50|${oidcIdpId(FORMER_IDP)}|alice`;
    await auth.services.vault.put('t-50', formerSubject, 'crm', { accessToken: 'upstream-of-former-alice' });
    await auth.services.vault.put('t-50', 't-50|dir|dave', 'crm', { accessToken: 'upstream-of-dave' });
    await publish(doc('t-50', 'v2', { kind: 'local' }));
    await pollUntil('the new IdP is served', () => auth.services.tenants.byId('t-50')?.settings.idp.kind === 'local');
    await auth.services.idpPurge.whenIdle();
    expect(await subjects('t-50')).toEqual(['t-50|dir|dave']);
  });

  it('refuses a still-valid token of a former identity at the vault while the purge of a changed tenant has not run', async () => {
    const connectors = { crm: { issuer: 'https://crm-as.example.test', clientId: 'c' } };
    await publish(doc('x-1', 'v1', { kind: 'local' }, connectors), false);
    const alice = await obtainTokens(`${auth.baseUrl}/t/x-1`, { user: 'alice', resource: 'http://127.0.0.1:3999/t/x-1/mcp' });
    expect(alice.status).toBe(200);
    await auth.services.idpPurge.whenIdle();
    await auth.services.vault.put('x-1', 'x-1|local|alice', 'crm', { accessToken: 'upstream-of-local-alice' });
    const exchange = () =>
      fetch(`${auth.baseUrl}/internal/t/x-1/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_TOKEN}` },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: String(alice.body.access_token),
          audience: 'crm',
        }).toString(),
      });
    expect((await exchange()).status).toBe(200);
    // The purge of x-1 waits behind this lock (the one replicas take per tenant), so only the new document decides.
    const lock = await auth.services.pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`idp-purge:${auth.schema}:x-1`]);
      await publish(doc('x-1', 'v2', { kind: 'oidc', issuer: FORMER_IDP, clientId: 'c' }, connectors));
      await pollUntil('the new IdP is served', () => auth.services.tenants.byId('x-1')?.settings.idp.kind === 'oidc');
      const refused = await exchange();
      expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
      expect(await subjects('x-1')).toEqual(['x-1|local|alice']);
    } finally {
      await lock.query('ROLLBACK');
      lock.release();
    }
    await auth.services.idpPurge.whenIdle();
    expect(await subjects('x-1')).toEqual([]);
  });

  it('evicts the least recently used tenants past its budget and reads an evicted one again on use', async () => {
    // A cold read refused past the look-up rate is a 404: each is retried until served.
    for (let i = 100; i < 100 + CACHE_MAX + 4; i++) await pollUntil(`t-${i} served`, async () => (await metadata(`t-${i}`)).status === 200);
    expect(feed.residentCount).toBe(CACHE_MAX);
    expect(feed.stats.evicted).toBeGreaterThan(0);
    expect(auth.services.tenants.byId('t-100')).toBeUndefined();
    expect(auth.services.tenants.byId(`t-${100 + CACHE_MAX + 3}`)).toBeDefined();
    await pollUntil('t-100 read again', async () => (await metadata('t-100')).status === 200);
    expect(auth.services.tenants.byId('t-100')).toBeDefined();
    // The file tenant is never evicted.
    expect(auth.services.tenants.byId('seeded-file')).toBeDefined();
  });

  it('ends a negative entry on catalog:changed: a tenant published after a miss is served at once', async () => {
    expect((await metadata('late')).status).toBe(404);
    await publish(doc('late'));
    await pollUntil('the late tenant is served', async () => (await metadata('late')).status === 200);
  });

  it('answers unknown ids 404 with a bounded number of look-ups, remembered apart from the held tenants', async () => {
    const held0 = feed.residentCount;
    const before = feed.stats.fetches;
    const started = Date.now();
    const ids = Array.from({ length: 100 }, (_, i) => `nope-${i}`);
    const statuses = await Promise.all(ids.map((id) => metadata(id).then((r) => r.status)));
    expect(statuses).toEqual(Array(100).fill(404));
    const elapsedS = (Date.now() - started) / 1000;
    expect(feed.stats.fetches - before).toBeLessThanOrEqual(FETCH_PER_SEC * 2 + Math.ceil(elapsedS * FETCH_PER_SEC) + 1);
    expect(feed.stats.shed).toBeGreaterThan(0);
    expect(feed.residentCount).toBe(held0);
    // Remembered: asked again, no new look-up.
    const again = feed.stats.fetches;
    expect((await metadata('nope-0')).status).toBe(404);
    expect(feed.stats.fetches).toBe(again);
    // Not tenant ids at all: no look-up either, through any route shape.
    for (const path of ['/t/NOT_AN_ID/token', '/t/-bad-/authorize', '/.well-known/openid-configuration/t/x..y']) {
      expect((await fetch(`${auth.baseUrl}${path}`)).status).toBe(404);
    }
    expect(feed.stats.fetches).toBe(again);
  });

  it('exports the working set on /metrics', async () => {
    // An id looked up, found unknown and asked again (a cold look-up may be shed while the rate refills).
    const fetches = feed.stats.fetches;
    await pollUntil('an unknown id looked up', async () => (await metadata('nope-metrics')).status === 404 && feed.stats.fetches > fetches);
    expect((await metadata('nope-metrics')).status).toBe(404);
    const text = await (await fetch(`${auth.baseUrl}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('auth_tenants_resident')).toBe(feed.residentCount);
    expect(value('auth_tenants_negative')).toBe(feed.negativeCount);
    expect(feed.negativeCount).toBeGreaterThan(0);
    const counters = { fetches: 'fetches', joined: 'joined', evictions: 'evicted', negative_hits: 'negativeHits', shed: 'shed' } as const;
    for (const [metric, stat] of Object.entries(counters)) {
      // Each moved in the tests above, and the scrape reports the feed's own count.
      expect([metric, feed.stats[stat] > 0, value(`auth_tenants_${metric}_total`)]).toEqual([metric, true, feed.stats[stat]]);
    }
  });
});

describe('auth tenant working set (lazy), host-based layout', () => {
  let hosted: TestAuth;
  beforeAll(async () => {
    hosted = await startAuth({
      tenants: [],
      env: {
        SWITCHBOARD_ENV: 'development',
        REDIS_URL,
        REDIS_NAMESPACE: NS,
        GATEWAY_DOMAIN: 'tenants.example.test',
        TENANT_RESYNC_MS: '0',
        LIMITS_KEY_PREFIX: `${NS}limits-hosted:`,
      },
    });
  }, 60_000);
  afterAll(async () => hosted?.close());

  const inject = (host: string, url: string) => hosted.app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers: { host } });

  it('reads the tenant its Host names before oidc-provider answers; an unknown host tenant is a 404', async () => {
    expect(hosted.services.tenants.byId('t-5')).toBeUndefined();
    const res = await inject('t-5.tenants.example.test', '/.well-known/oauth-authorization-server');
    expect(res.statusCode).toBe(200);
    expect(res.json<{ issuer: string }>().issuer).toBe('https://t-5.tenants.example.test');
    expect((await inject('nobody-here.tenants.example.test', '/.well-known/oauth-authorization-server')).statusCode).toBe(404);
    expect(hosted.lazyTenants?.residentCount).toBe(1);
  });
});

describe('auth tenant loading, AUTH_TENANT_LOADING=eager', () => {
  let eager: TestAuth;
  beforeAll(async () => {
    eager = await startAuth({
      tenants: [],
      env: { REDIS_URL, REDIS_NAMESPACE: NS, AUTH_TENANT_LOADING: 'eager', TENANT_RESYNC_MS: '0', LIMITS_KEY_PREFIX: `${NS}limits-eager:` },
    });
  }, 60_000);
  afterAll(async () => eager?.close());

  it('reads every registry tenant at boot, before any request names one', () => {
    expect(eager.lazyTenants).toBeUndefined();
    for (const id of ['t-0', 't-7', `t-${SEEDED - 1}`]) expect(eager.services.tenants.byId(id)?.id).toBe(id);
    expect(eager.services.tenants.all().length).toBeGreaterThanOrEqual(SEEDED);
  });
});
