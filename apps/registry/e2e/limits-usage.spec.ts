// Issue 13 end to end with built processes (run `npx tsc -b tsconfig.build.json` first): a
// tenant's rate plan set through PUT /v1/limits reaches both gateways like a publish and is
// enforced across them; calls through the gateways appear in GET /v1/usage (JSON and CSV)
// and GET /v1/calls of their tenant only; opted-in arguments arrive redacted.
import { Redis } from 'ioredis';
import { UsageBatchWriter, usageStreamKey, type UsageEvent } from '@switchboard/limits';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  REDIS_URL,
  registerAndDiscover,
  startGateway,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(120_000);

type Json = Record<string, unknown>;

describe('rate plans, usage and the call log', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  const gateways: Proc[] = [];
  let crm: TestUpstream;
  let keyA: string;
  let keyB: string;
  let nextId = 1;

  const call = async (gateway: Proc, tenant: string, name: string, args: Json = {}) => {
    const res = await fetch(`${gateway.url}/t/${tenant}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }),
    });
    return { status: res.status, body: (await res.json()) as { result?: Json; error?: { code: number; data?: Json } } };
  };

  beforeAll(async () => {
    db = await createDatabase();
    crm = await startUpstream('crm', [
      { name: 'lookup', annotations: READ_ONLY_HINTS },
      { name: 'search', annotations: READ_ONLY_HINTS },
    ]);
    registry = await startRegistry(env, db.url);
    keyA = await createTenant(registry.url, env.operatorKey, 'acme');
    keyB = await createTenant(registry.url, env.operatorKey, 'beta');
    for (const key of [keyA, keyB]) {
      await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: crm.url });
      const published = await api(registry.url, key, 'POST', '/v1/publications', {
        serverId: 'crm',
        items: [{ name: 'lookup' }, { name: 'search' }],
      });
      expect(published.status).toBe(200);
    }
    const gwEnv = { USAGE_FLUSH_MS: '50' };
    gateways.push(await startGateway(env, registry.url, gwEnv), await startGateway(env, registry.url, gwEnv));
  });

  afterAll(async () => {
    for (const g of gateways) await g.stop();
    await registry?.stop();
    await crm?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('refuses a bad plan naming the field', async () => {
    const bad = await api(registry.url, keyA, 'PUT', '/v1/limits', { rate: { tools: { lookup: { requestsPerSecond: 1, burst: 0 } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.field).toBe('body.rate.tools.lookup.burst');
    const unknown = await api(registry.url, keyA, 'PUT', '/v1/limits', { rate: { perTool: {} } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.message).toContain('body.rate');
  });

  it('a plan set through the admin API holds across both gateways', async () => {
    const put = await api(registry.url, keyA, 'PUT', '/v1/limits', {
      rate: { tools: { lookup: { requestsPerSecond: 0.02, burst: 4 } } },
      callLog: { captureArguments: true, redactKeys: ['ssn'], retentionDays: 7 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ rate: { tools: { lookup: { burst: 4 } } }, pushed: 'ok' });
    expect((await api(registry.url, keyA, 'GET', '/v1/limits')).body).toMatchObject({ callLog: { captureArguments: true } });
    // Reaches the gateways like a publish: poll until a refusal shows up, then count a fresh window.
    await until('the plan at the gateways', async () => {
      const r = await call(gateways[0], 'acme', 'lookup', { text: 'probe' });
      return r.body.error?.code === -32029 ? true : undefined;
    });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(gateways[i % 2], 'acme', 'search', { text: `s${i}`, ssn: '123-45-6789' })),
    );
    expect(results.every((r) => r.status === 200 && r.body.result)).toBe(true);
    const refused = await call(gateways[1], 'acme', 'lookup', {});
    expect(refused.body.error).toMatchObject({ code: -32029, data: { limit: 'tool' } });
    // Beta's lookup has its own (default) limits.
    expect((await call(gateways[1], 'beta', 'lookup', { text: 'b' })).body.result).toBeDefined();
  });

  it("calls appear in their tenant's usage and call log only, arguments redacted", async () => {
    const usage = await until('usage drained', async () => {
      const res = await api(registry.url, keyA, 'GET', '/v1/usage?groupBy=tool');
      const rows = res.body.usage as Array<Json> | undefined;
      const search = rows?.find((r) => r.tool === 'search');
      const lookup = rows?.find((r) => r.tool === 'lookup');
      return search && (search.calls as number) >= 10 && lookup && (lookup.rateLimited as number) >= 1 ? rows : undefined;
    });
    expect(usage.find((r) => r.tool === 'search')).toMatchObject({ server: 'crm', calls: 10, errors: 0, rateLimited: 0 });
    const beta = await until('beta usage', async () => {
      const rows = (await api(registry.url, keyB, 'GET', '/v1/usage?groupBy=tool')).body.usage as Array<Json> | undefined;
      return rows && rows.length > 0 ? rows : undefined;
    });
    expect(beta.map((r) => r.tool)).toEqual(['lookup']);
    expect(beta[0].calls).toBe(1);

    const csv = await fetch(`${registry.url}/v1/usage?format=csv&tool=search`, { headers: { authorization: `Bearer ${keyA}` } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('day,server,tool,subject,calls,errors,toolErrors,rateLimited,bytesIn,bytesOut,avgMs');
    expect(lines.slice(1).every((l) => l.includes(',crm,search,'))).toBe(true);

    // Cursor pagination over the call log, newest first, no duplicates.
    const seen: Json[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const page = await api(registry.url, keyA, 'GET', `/v1/calls?tool=search&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body.calls as Json[]));
      cursor = page.body.nextCursor as string | null;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(10);
    expect(new Set(seen.map((c) => c.id)).size).toBe(10);
    expect(seen[0]).toMatchObject({ method: 'tools/call', server: 'crm', outcome: 'ok', subject: expect.stringMatching(/^ip:/) });
    expect(seen[0].arguments).toMatchObject({ ssn: '[redacted]', text: expect.stringMatching(/^s\d$/) });
    const limited = await api(registry.url, keyA, 'GET', '/v1/calls?outcome=rate_limited');
    expect((limited.body.calls as Json[]).length).toBeGreaterThanOrEqual(1);

    // Beta sees its one call, never acme's, whatever the filters; and no arguments (not opted in).
    const betaCalls = (await api(registry.url, keyB, 'GET', '/v1/calls?limit=200')).body.calls as Json[];
    expect(betaCalls).toHaveLength(1);
    expect(betaCalls[0].arguments).toBeNull();
    expect(((await api(registry.url, keyB, 'GET', '/v1/calls?tool=search')).body.calls as Json[]).length).toBe(0);
  });

  it('captured arguments need the admin role: a viewer sees the rows without them, an admin sees them', async () => {
    const keyOf = async (role: string) => {
      const created = await api(registry.url, keyA, 'POST', '/v1/keys', { name: `${role}-key`, role });
      expect(created.status).toBe(201);
      return created.body.apiKey as string;
    };
    const viewer = await keyOf('viewer');
    const admin = await keyOf('admin');

    const asViewer = await api(registry.url, viewer, 'GET', '/v1/calls?tool=search&limit=200');
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.captures).toBe('withheld');
    const rows = asViewer.body.calls as Json[];
    expect(rows).toHaveLength(10);
    expect(rows[0]).toMatchObject({ method: 'tools/call', server: 'crm', tool: 'search', outcome: 'ok' });
    expect(rows.every((r) => !('arguments' in r) && !('result' in r))).toBe(true);

    const asAdmin = await api(registry.url, admin, 'GET', '/v1/calls?tool=search&limit=200');
    expect(asAdmin.body.captures).toBe('included');
    expect((asAdmin.body.calls as Json[])[0].arguments).toMatchObject({ ssn: '[redacted]', text: expect.stringMatching(/^s\d$/) });
  });

  it("drains an older gateway's entries, and records that cannot be stored neither stall the stream nor take other records with them", async () => {
    const redis = new Redis(REDIS_URL);
    const key = usageStreamKey(env.namespace);
    const base = {
      endedAt: performance.now(),
      tenant: 'acme',
      method: 'tools/call',
      server: 'crm',
      subjectKind: 'ip',
      subjectId: 'drain',
      client: undefined,
      surface: 'generic',
      outcome: 'ok',
      code: undefined,
      ms: 2,
      in: 10,
      out: 20,
      args: undefined,
      result: undefined,
    } satisfies Partial<UsageEvent>;
    const batch = new UsageBatchWriter();
    // Lone surrogates and NUL in captured values are made storable, not refused.
    batch.add({ ...base, tool: 'compact', args: { 'k\u0000': 'x\ud800y' }, result: ['\udc00'] });
    // A lone surrogate in a text column would fail the whole batch in Postgres.
    batch.add({ ...base, tool: 'poison-text', subjectKind: 'sub', subjectId: 'eve\ud800' });
    // Numbers past int32 are bounded by the batch itself: the call is kept, as an error without its code.
    batch.add({ ...base, tool: 'huge', outcome: 'error', code: 1e20, out: 2 ** 40 });
    try {
      // What a gateway from before the compact batches wrote: a JSON array of records under `r`. Its
      // numbers are whatever JSON held, so these would fail the batch: integer out of range, a time past any date.
      const legacy = {
        t: Date.now(),
        tenant: 'acme',
        method: 'tools/call',
        tool: 'legacy',
        server: 'crm',
        subject: 'ip:drain',
        surface: 'generic',
        outcome: 'ok',
        ms: 1,
        in: 1,
        out: 1,
      };
      const poison = [
        { ...legacy, tool: 'poison-time', t: 9e15 },
        { ...legacy, tool: 'poison-code', outcome: 'error', code: 1e20 },
        { ...legacy, tool: 'poison-size', out: 2 ** 40 },
        { ...legacy, tool: 'poison-ms', ms: 1e300 },
      ];
      await redis.xadd(key, '*', 'r', JSON.stringify([legacy, ...poison]));
      await redis.xadd(key, '*', 'b', batch.take());
      await redis.xadd(key, '*', 'b', '{"v":2,"t":');
      await redis.xadd(key, '*', 'x', 'an unknown field');
      const rows = await until('the drained entries', async () => {
        const list = (await api(registry.url, keyA, 'GET', '/v1/usage?groupBy=tool')).body.usage as Json[] | undefined;
        return list?.some((r) => r.tool === 'legacy') && list.some((r) => r.tool === 'compact') ? list : undefined;
      });
      expect(rows.map((r) => r.tool)).not.toEqual(expect.arrayContaining([expect.stringMatching(/^poison/)]));
      const [stored] = (await api(registry.url, keyA, 'GET', '/v1/calls?tool=compact')).body.calls as Json[];
      expect(stored).toMatchObject({ subject: 'ip:drain', arguments: { k: 'x\ufffdy' }, result: ['\ufffd'] });
      const [huge] = (await api(registry.url, keyA, 'GET', '/v1/calls?tool=huge')).body.calls as Json[];
      expect(huge).toMatchObject({ outcome: 'error', errorCode: null, bytesOut: 2 ** 31 - 1 });
      // The stream is not stuck: what the gateways send next is drained too.
      expect((await call(gateways[0], 'beta', 'search', { text: 'after' })).body.result).toBeDefined();
      await until('a call after the entries', async () => {
        const list = (await api(registry.url, keyB, 'GET', '/v1/usage?groupBy=tool')).body.usage as Json[] | undefined;
        return list?.some((r) => r.tool === 'search') ? true : undefined;
      });
    } finally {
      redis.disconnect();
    }
  });

  it('answers bad usage / calls queries with 400 naming the parameter', async () => {
    expect((await api(registry.url, keyA, 'GET', '/v1/usage?from=2026-13-45')).body.error?.field).toBe('query.from');
    expect((await api(registry.url, keyA, 'GET', '/v1/calls?cursor=abc')).body.error?.field).toBe('query.cursor');
    expect((await api(registry.url, keyA, 'GET', '/v1/usage?limit=5000')).body.error?.field).toBe('query.limit');
  });
});
