// Tool schemas whose regexes the gateway's linear-time engine (RE2) cannot run are refused at
// publish and approve, with the tool, the JSON pointer and the reason — against a real registry
// process, Postgres, Redis/BullMQ and an SDK-built upstream whose tools change between discoveries.
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

const HINTS = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
const LOOKAHEAD_REASON = 'lookahead (?=…) (needs a backtracking engine)';

describe('patterns RE2 cannot run', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let shop: TestUpstream;
  let key: string;
  const tools: Array<{ name: string; annotations?: Record<string, unknown>; inputSchema?: z.ZodRawShape }> = [
    { name: 'lookup', annotations: HINTS, inputSchema: { code: z.string().regex(/^(?=.*\d).+$/) } },
    // Catastrophic on V8, linear on RE2: publishable.
    { name: 'echo', annotations: HINTS, inputSchema: { s: z.string().regex(/^(a+)+$/) } },
  ];

  beforeAll(async () => {
    db = await createDatabase();
    shop = await startUpstream('shop', tools);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'shop', name: 'Shop', url: shop.url });
  });

  afterAll(async () => {
    await registry?.stop();
    await shop?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('flags each discovered tool with the patterns RE2 cannot run', async () => {
    const items = (await api(registry.url, key, 'GET', '/v1/servers/shop/items')).body.items as Array<{
      name: string;
      unsupportedPatterns: unknown;
    }>;
    expect(Object.fromEntries(items.map((i) => [i.name, i.unsupportedPatterns]))).toEqual({
      echo: [],
      lookup: [{ pointer: '/inputSchema/properties/code/pattern', pattern: '^(?=.*\\d).+$', reason: LOOKAHEAD_REASON }],
    });
  });

  it('refuses to publish (or draft) the tool: 400 PATTERN_UNSUPPORTED naming the tool, pointer and reason, writing nothing', async () => {
    const message =
      'body.items.1.name: tool "lookup" cannot be published: /inputSchema/properties/code/pattern uses lookahead (?=…) (needs a backtracking engine), which the gateway\'s linear-time regex engine cannot run; change the pattern on the upstream server';
    for (const path of ['/v1/publications', '/v1/preview']) {
      const res = await api(registry.url, key, 'POST', path, { serverId: 'shop', items: [{ name: 'echo' }, { name: 'lookup' }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'PATTERN_UNSUPPORTED',
        field: 'body.items.1.name',
        message,
        issues: [
          {
            field: 'body.items.1.name',
            message: message.replace('body.items.1.name: ', ''),
            tool: 'lookup',
            pointer: '/inputSchema/properties/code/pattern',
            pattern: '^(?=.*\\d).+$',
            reason: LOOKAHEAD_REASON,
          },
        ],
      });
    }
    expect((await api(registry.url, key, 'GET', '/v1/publications')).body.publications).toEqual([]);
  });

  it('publishes ^(a+)+$ (RE2 runs it in linear time), then refuses to approve a change that adds a backreference', async () => {
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'shop', items: [{ name: 'echo' }] })).status).toBe(200);
    tools[1] = { name: 'echo', annotations: HINTS, inputSchema: { s: z.string().regex(/^(a)\1$/) } };
    const res = await api(registry.url, key, 'POST', '/v1/servers/shop/discover');
    await until('rediscovery done', async () => {
      const d = (await api(registry.url, key, 'GET', '/v1/servers/shop')).body.discovery as { jobId?: string; state: string };
      return d.jobId === res.body.jobId && d.state === 'ok';
    });
    const changes = (await api(registry.url, key, 'GET', '/v1/changes')).body.changes as Array<{
      name: string;
      unsupportedPatterns: unknown;
    }>;
    expect(changes.map((c) => [c.name, c.unsupportedPatterns])).toEqual([
      [
        'echo',
        [{ pointer: '/inputSchema/properties/s/pattern', pattern: '^(a)\\1$', reason: 'backreference \\1 (needs a backtracking engine)' }],
      ],
    ]);
    const approve = await api(registry.url, key, 'POST', '/v1/changes/approve', { serverId: 'shop', name: 'echo' });
    expect(approve.status).toBe(400);
    expect(approve.body.error).toMatchObject({
      code: 'PATTERN_UNSUPPORTED',
      field: 'body.name',
      message: expect.stringContaining(
        'body.name: tool "echo" cannot be published: /inputSchema/properties/s/pattern uses backreference \\1',
      ),
    });
    // Still held: the change is not approved.
    expect(((await api(registry.url, key, 'GET', '/v1/changes')).body.changes as unknown[]).length).toBe(1);
  });
});
