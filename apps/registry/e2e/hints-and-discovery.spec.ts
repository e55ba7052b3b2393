// Hint annotations required before publishing (draft preview included), the structured diff of held
// upstream changes, and discovery progress on the server view — against a real registry process,
// Postgres, Redis/BullMQ and SDK-built upstreams whose tools change between discoveries.
import { z } from 'zod';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(90_000);

type Discovery = {
  state: string;
  jobId?: string;
  attempt?: number;
  startedAt?: string;
  finishedAt?: string;
  error?: string;
  counts?: Record<string, number>;
};
type Item = { kind: string; name: string; missingHints: string[] };
type Change = {
  serverId: string;
  name: string;
  change: string;
  diff: Array<{ path: string; op: string; before?: unknown; after?: unknown }>;
  missingHints: string[];
};

describe('hints before publishing, change diffs, discovery progress', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let shop: TestUpstream;
  let key: string;
  // The upstream's tools, read on every request: the tests change them to simulate an upstream release.
  const tools: Array<{ name: string; description?: string; annotations?: Record<string, unknown>; inputSchema?: z.ZodRawShape }> = [
    {
      name: 'list_orders',
      description: 'List orders',
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
      inputSchema: { limit: z.number().int().max(50) },
    },
    { name: 'refund' },
    { name: 'search', annotations: { readOnlyHint: true } },
  ];

  const server = async (id: string) =>
    (await api(registry.url, key, 'GET', `/v1/servers/${id}`)).body as Record<string, unknown> & { discovery: Discovery };
  const itemsOf = async (id: string) => (await api(registry.url, key, 'GET', `/v1/servers/${id}/items`)).body.items as Item[];
  const publications = async () => (await api(registry.url, key, 'GET', '/v1/publications')).body.publications;

  beforeAll(async () => {
    db = await createDatabase();
    shop = await startUpstream('shop', tools);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    shop?.release();
    await registry?.stop();
    await shop?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  describe('discovery progress', () => {
    it('shows queued → running (attempt 1) while the upstream is answering, then ok with counts', async () => {
      shop.mode = 'hold';
      const created = await api(registry.url, key, 'POST', '/v1/servers', { id: 'shop', name: 'Shop', url: shop.url });
      expect(created.status).toBe(201);
      const first = (created.body.server as { discovery: Discovery }).discovery;
      // The worker may already have picked the job up by the time the answer is built.
      expect(['queued', 'running']).toContain(first.state);
      expect(first.jobId).toBe((created.body.discovery as { jobId: string }).jobId);
      const running = await until('discovery running', async () => {
        const d = (await server('shop')).discovery;
        return d.state === 'running' ? d : undefined;
      });
      expect(running).toMatchObject({ state: 'running', jobId: first.jobId, attempt: 1, startedAt: expect.any(String) });
      expect(running.finishedAt).toBeUndefined();
      expect((await api(registry.url, key, 'GET', '/v1/servers')).body.servers).toEqual([
        expect.objectContaining({ id: 'shop', discovery: expect.objectContaining({ state: 'running' }) }),
      ]);
      shop.release();
      const done = await until('discovery ok', async () => {
        const s = await server('shop');
        return s.discovery.state === 'ok' ? s : undefined;
      });
      expect(done.health).toBe('ok');
      expect(done.discovery).toEqual({
        state: 'ok',
        jobId: first.jobId,
        attempt: 1,
        startedAt: running.startedAt,
        finishedAt: expect.any(String),
        counts: { tools: 3, prompts: 0, resources: 0, resourceTemplates: 0 },
      });
      expect(Date.parse(done.discovery.finishedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(running.startedAt ?? ''));
    });

    it('shows error with the reason once every attempt against a bad upstream failed', async () => {
      const dead = await startUpstream('dead', [{ name: 'x' }]);
      const url = dead.url;
      await dead.close();
      const created = await api(registry.url, key, 'POST', '/v1/servers', { id: 'dead', name: 'Dead', url });
      expect(created.status).toBe(201);
      const failed = await until(
        'discovery error',
        async () => {
          const s = await server('dead');
          return s.discovery.state === 'error' ? s : undefined;
        },
        30_000,
      );
      // DISCOVERY_ATTEMPTS=2 in the test registry: the last attempt is the second.
      expect(failed.discovery).toMatchObject({ state: 'error', attempt: 2, error: expect.any(String), finishedAt: expect.any(String) });
      expect(failed.discovery.error).toBe(failed.lastError);
      expect(failed.discovery.counts).toBeUndefined();
      expect(failed.health).toBe('error');
      // A manual rediscovery queues again, with a new job.
      const again = await api(registry.url, key, 'POST', '/v1/servers/dead/discover');
      expect(again.status).toBe(202);
      expect(again.body.jobId).not.toBe(failed.discovery.jobId);
      expect(['queued', 'running', 'error']).toContain((await server('dead')).discovery.state);
      await until(
        'second discovery settles',
        async () => {
          const d = (await server('dead')).discovery;
          return d.jobId === again.body.jobId && d.state === 'error';
        },
        30_000,
      );
    });
  });

  describe('hints required before publishing', () => {
    it('flags the hints each discovered tool lacks upstream', async () => {
      const items = await itemsOf('shop');
      expect(Object.fromEntries(items.map((i) => [i.name, i.missingHints]))).toEqual({
        list_orders: [],
        refund: ['readOnlyHint', 'destructiveHint', 'openWorldHint'],
        search: ['destructiveHint', 'openWorldHint'],
      });
    });

    it('refuses tools without all three hints (400 HINTS_REQUIRED, one issue per missing hint) in publish and draft preview alike, writing nothing', async () => {
      const body = {
        serverId: 'shop',
        items: [{ name: 'list_orders' }, { name: 'refund' }, { name: 'search', overrides: { title: 'Search' } }],
      };
      const before = await publications();
      for (const path of ['/v1/publications', '/v1/preview']) {
        const res = await api(registry.url, key, 'POST', path, body);
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({
          code: 'HINTS_REQUIRED',
          field: 'body.items.1.overrides.annotations.readOnlyHint',
          message:
            'body.items.1.overrides.annotations.readOnlyHint: tool "refund" must declare readOnlyHint, destructiveHint and openWorldHint before publishing (missing: readOnlyHint, destructiveHint, openWorldHint); set them as overrides',
          issues: [
            { field: 'body.items.1.overrides.annotations.readOnlyHint', message: expect.stringContaining('"refund"') },
            { field: 'body.items.1.overrides.annotations.destructiveHint', message: expect.stringContaining('destructiveHint') },
            { field: 'body.items.1.overrides.annotations.openWorldHint', message: expect.stringContaining('openWorldHint') },
            { field: 'body.items.2.overrides.annotations.destructiveHint', message: expect.stringContaining('"search"') },
            { field: 'body.items.2.overrides.annotations.openWorldHint', message: expect.stringContaining('"search"') },
          ],
        });
      }
      expect(await publications()).toEqual(before);
      expect((await api(registry.url, key, 'GET', '/v1/tenant')).body.currentVersion).toBeNull();
      // Fixing only part of it still names what is left.
      const partial = await api(registry.url, key, 'POST', '/v1/preview', {
        serverId: 'shop',
        items: [{ name: 'refund', overrides: { annotations: { readOnlyHint: false } } }],
      });
      expect(partial.body.error).toMatchObject({ code: 'HINTS_REQUIRED', field: 'body.items.0.overrides.annotations.destructiveHint' });
      expect(partial.body.error?.message).toContain('(missing: destructiveHint, openWorldHint)');
      // A hint must be a boolean.
      const typed = await api(registry.url, key, 'POST', '/v1/publications', {
        serverId: 'shop',
        items: [{ name: 'refund', overrides: { annotations: { readOnlyHint: 'no' } } }],
      });
      expect(typed.body.error).toMatchObject({ code: 'VALIDATION', field: 'body.items.0.overrides.annotations.readOnlyHint' });
    });

    it('publishes once overrides supply the hints (an override wins over the upstream), and the draft preview agrees', async () => {
      const body = {
        serverId: 'shop',
        items: [
          { name: 'list_orders' },
          { name: 'refund', overrides: { annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true } } },
          // Upstream says read-only; the tenant knows better.
          { name: 'search', overrides: { annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true } } },
        ],
      };
      const draft = await api(registry.url, key, 'POST', '/v1/preview?surface=generic', body);
      expect(draft.status).toBe(200);
      const published = await api(registry.url, key, 'POST', '/v1/publications', body);
      expect(published.status).toBe(200);
      expect(published.body.version).toBe(draft.body.version);
      const live = await api(registry.url, key, 'GET', '/v1/preview?surface=generic');
      const annotations = Object.fromEntries(
        (live.body.surfaces as { generic: { tools: Array<{ name: string; annotations?: unknown }> } }).generic.tools.map((t) => [
          t.name,
          t.annotations,
        ]),
      );
      expect(annotations).toEqual({
        list_orders: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
        refund: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
        search: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      });
    });
  });

  describe('structured diff of held upstream changes', () => {
    const rediscover = async () => {
      const res = await api(registry.url, key, 'POST', '/v1/servers/shop/discover');
      expect(res.status).toBe(202);
      await until('rediscovery done', async () => {
        const d = (await server('shop')).discovery;
        return d.jobId === res.body.jobId && d.state === 'ok';
      });
    };

    it('shows what changed path by path, with the hints the new definition lacks', async () => {
      expect((await api(registry.url, key, 'GET', '/v1/changes')).body.changes).toEqual([]);
      // The upstream ships a release: a bigger limit, a new description, a dropped hint, and one tool gone.
      tools[0] = {
        name: 'list_orders',
        description: 'List and export orders',
        annotations: { readOnlyHint: true, openWorldHint: false },
        inputSchema: { limit: z.number().int().max(500) },
      };
      tools.splice(2, 1);
      await rediscover();
      const changes = (await api(registry.url, key, 'GET', '/v1/changes')).body.changes as Change[];
      const byName = Object.fromEntries(changes.map((c) => [c.name, c]));
      expect(Object.keys(byName).sort()).toEqual(['list_orders', 'search']);
      expect(byName.list_orders.change).toBe('modified');
      expect(byName.list_orders.diff).toEqual([
        { path: '/annotations/destructiveHint', op: 'removed', before: false },
        { path: '/description', op: 'changed', before: 'List orders', after: 'List and export orders' },
        { path: '/inputSchema/properties/limit/maximum', op: 'changed', before: 50, after: 500 },
      ]);
      expect(byName.list_orders.missingHints).toEqual(['destructiveHint']);
      expect(byName.search).toMatchObject({ change: 'removed', diff: [{ path: '', op: 'removed' }], missingHints: [] });
      // Held: the live catalog still has the approved definition.
      const live = await api(registry.url, key, 'GET', '/v1/preview?surface=generic');
      const listOrders = (live.body.surfaces as { generic: { tools: Array<{ name: string; description?: string }> } }).generic.tools.find(
        (t) => t.name === 'list_orders',
      );
      expect(listOrders?.description).toBe('List orders');
      // Approving the removal clears it; the modification stays held.
      expect((await api(registry.url, key, 'POST', '/v1/changes/approve', { serverId: 'shop', name: 'search' })).status).toBe(200);
      expect(((await api(registry.url, key, 'GET', '/v1/changes')).body.changes as Change[]).map((c) => c.name)).toEqual(['list_orders']);
    });
  });

  it('keeps every tenant to its own items and changes', async () => {
    const other = await createTenant(registry.url, env.operatorKey, 'other');
    const spy = await startUpstream('spy', [{ name: 'spy_tool' }]);
    try {
      await registerAndDiscover(registry.url, other, { id: 'spy', name: 'Spy', url: spy.url });
      expect((await api(registry.url, other, 'GET', '/v1/servers/shop/items')).status).toBe(404);
      expect((await api(registry.url, other, 'GET', '/v1/changes')).body.changes).toEqual([]);
      expect(JSON.stringify((await api(registry.url, other, 'GET', '/v1/servers')).body)).not.toMatch(/shop|list_orders/);
      expect((await api(registry.url, other, 'POST', '/v1/preview', { serverId: 'shop', items: [{ name: 'refund' }] })).status).toBe(404);
    } finally {
      await spy.close();
    }
  });
});
