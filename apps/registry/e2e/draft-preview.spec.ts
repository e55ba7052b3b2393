// The draft preview (POST /v1/preview) against a real registry process and a spawned gateway:
// a proposed publication is compiled exactly as publishing would compile it (same version hash,
// same per-surface lists), nothing is written or pushed until the tenant publishes, drafts stay
// inside their tenant, and bad input is refused the way publishing refuses it.
import { startDocsUpstream } from './support/docs-upstream';
import {
  api,
  cleanRedis,
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

jest.setTimeout(90_000);

type Tool = Record<string, unknown> & {
  name: string;
  title?: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};
type Surfaces = Record<string, { tools: Tool[] }>;

describe('draft preview (POST /v1/preview)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let docs: Awaited<ReturnType<typeof startDocsUpstream>>;
  let crm: TestUpstream;
  let other: TestUpstream;
  let key: string;
  let otherKey: string;
  let liveVersion: string;

  // The docs upstream declares only readOnlyHint: the other two hints publishing requires are overrides.
  const DOCS_HINTS = { destructiveHint: false, openWorldHint: false };
  const draftBody = { serverId: 'docs', items: [{ name: 'search_docs', overrides: { title: 'Search docs', annotations: DOCS_HINTS } }] };

  const gatewayTools = async (): Promise<Tool[]> => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    if (res.status !== 200) return [];
    const body = (await res.json()) as { result?: { tools: Tool[] } };
    return body.result?.tools ?? [];
  };
  const tool = (surfaces: Surfaces, surface: string, name: string) => surfaces[surface].tools.find((t) => t.name === name);
  const state = async (k: string) => ({
    publications: (await api(registry.url, k, 'GET', '/v1/publications')).body,
    snapshots: (await api(registry.url, k, 'GET', '/v1/snapshots')).body,
    audit: (await api(registry.url, k, 'GET', '/v1/audit')).body.entries,
    tenant: (await api(registry.url, k, 'GET', '/v1/tenant')).body.currentVersion,
  });

  beforeAll(async () => {
    db = await createDatabase();
    docs = await startDocsUpstream();
    crm = await startUpstream('crm', [{ name: 'lookup', annotations: READ_ONLY_HINTS }]);
    other = await startUpstream('other', [{ name: 'secret_tool', annotations: READ_ONLY_HINTS }]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    otherKey = await createTenant(registry.url, env.operatorKey, 'other');
    await registerAndDiscover(registry.url, key, { id: 'docs', name: 'Docs', url: docs.url });
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: crm.url });
    await registerAndDiscover(registry.url, otherKey, { id: 'vault', name: 'Vault', url: other.url });
    const pub = await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'lookup' }] });
    expect(pub.status).toBe(200);
    const pub2 = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'docs',
      items: [{ name: 'search_docs', overrides: { annotations: DOCS_HINTS } }],
    });
    expect(pub2.status).toBe(200);
    liveVersion = pub2.body.version as string;
    gateway = await startGateway(env, registry.url);
    await until('gateway serves the live catalog', async () => (await gatewayTools()).some((t) => t.name === 'search_docs'));
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await docs?.close();
    await crm?.close();
    await other?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('shows a title override on every surface, with Claude and OpenAI differing as the surface rules say, marked as a draft', async () => {
    const res = await api(registry.url, key, 'POST', '/v1/preview', draftBody);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      draft: true,
      live: false,
      liveVersion,
      protocolVersion: '2025-11-25',
      items: [{ kind: 'tool', name: 'search_docs', exposedName: 'search_docs' }],
    });
    expect(res.body.version).not.toBe(liveVersion);
    const surfaces = res.body.surfaces as Surfaces;
    expect(Object.keys(surfaces)).toEqual(expect.arrayContaining(['generic', 'claude', 'openai']));
    for (const s of ['generic', 'claude', 'openai']) expect(tool(surfaces, s, 'search_docs')?.title).toBe('Search docs');
    expect(tool(surfaces, 'claude', 'search_docs')?.annotations?.title).toBe('Search docs');
    expect(tool(surfaces, 'generic', 'search_docs')?.annotations?.title).toBeUndefined();
    expect(tool(surfaces, 'openai', 'search_docs')?._meta?.securitySchemes).toEqual([{ type: 'noauth' }]);
    expect(tool(surfaces, 'claude', 'search_docs')?._meta?.securitySchemes).toBeUndefined();
    // The rest of the published catalog is in the draft too.
    expect(tool(surfaces, 'claude', 'lookup')).toBeDefined();
  });

  it('writes nothing: publications, snapshots, audit, the live preview and the gateway are unchanged until publish', async () => {
    const before = await state(key);
    const draft = await api(registry.url, key, 'POST', '/v1/preview', draftBody);
    expect(draft.status).toBe(200);
    expect(await state(key)).toEqual(before);
    const livePreview = await api(registry.url, key, 'GET', '/v1/preview');
    expect(livePreview.body.live).toBe(true);
    expect(tool(livePreview.body.surfaces as Surfaces, 'claude', 'search_docs')?.title).toBeUndefined();
    expect((await gatewayTools()).find((t) => t.name === 'search_docs')?.title).toBeUndefined();

    // Publishing the same body yields the draft's exact snapshot, and the gateway then serves it.
    const published = await api(registry.url, key, 'POST', '/v1/publications', draftBody);
    expect(published.status).toBe(200);
    expect(published.body.version).toBe(draft.body.version);
    const nowLive = await api(registry.url, key, 'GET', '/v1/preview');
    expect(nowLive.body).toMatchObject({ version: draft.body.version, live: true });
    expect(nowLive.body.surfaces).toEqual(draft.body.surfaces);
    await until(
      'gateway serves the override',
      async () => (await gatewayTools()).find((t) => t.name === 'search_docs')?.title === 'Search docs',
    );

    // A draft identical to what is live says so.
    const again = await api(registry.url, key, 'POST', '/v1/preview', draftBody);
    expect(again.body).toMatchObject({ draft: true, live: true, version: draft.body.version, liveVersion: draft.body.version });
  });

  it('previews a rename as publishing would compile it (the old name unlisted: callable in its grace period, absent from tools/list)', async () => {
    const body = {
      serverId: 'docs',
      items: [{ name: 'search_docs', exposedName: 'docs_search', overrides: { title: 'Search docs', annotations: DOCS_HINTS } }],
    };
    const res = await api(registry.url, key, 'POST', '/v1/preview?surface=claude', body);
    expect(res.status).toBe(200);
    const surfaces = res.body.surfaces as Surfaces;
    expect(Object.keys(surfaces)).toEqual(['claude']);
    expect(surfaces.claude.tools.map((t) => t.name).sort()).toEqual(['docs_search', 'lookup']);
    // Still a draft: the routing table keeps the old name.
    expect((await api(registry.url, key, 'GET', '/v1/publications')).body.publications).toEqual(
      expect.arrayContaining([expect.objectContaining({ exposedName: 'search_docs', upstreamName: 'search_docs' })]),
    );
    // The draft's version is the one publishing produces (the grace-period entry included).
    const published = await api(registry.url, key, 'POST', '/v1/publications', body);
    expect(published.body.version).toBe(res.body.version);
    expect(
      (
        await api(registry.url, key, 'POST', '/v1/publications', {
          serverId: 'docs',
          items: [{ name: 'search_docs', exposedName: 'search_docs', overrides: { title: 'Search docs', annotations: DOCS_HINTS } }],
        })
      ).status,
    ).toBe(200);
  });

  it("stays inside the caller's tenant", async () => {
    const foreign = await api(registry.url, otherKey, 'POST', '/v1/preview', draftBody);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'NOT_FOUND', field: 'body.serverId' });
    const own = await api(registry.url, otherKey, 'POST', '/v1/preview', { serverId: 'vault', items: [{ name: 'secret_tool' }] });
    expect(own.status).toBe(200);
    expect(own.body.liveVersion).toBeNull();
    expect(JSON.stringify(own.body)).not.toMatch(/search_docs|lookup|acme/);
    const acme = await api(registry.url, key, 'POST', '/v1/preview', { serverId: 'vault', items: [{ name: 'secret_tool' }] });
    expect(acme.status).toBe(404);
    expect(JSON.stringify((await api(registry.url, key, 'GET', '/v1/preview')).body)).not.toMatch(/secret_tool/);
    expect((await api(registry.url, undefined, 'POST', '/v1/preview', draftBody)).status).toBe(401);
  });

  it('refuses bad input exactly as publishing does (4xx naming the field), and never writes', async () => {
    const before = await state(key);
    const cases: Array<{ body: unknown; status: number; code: string; field: string }> = [
      { body: {}, status: 400, code: 'VALIDATION', field: 'body.serverId' },
      { body: { serverId: 'docs', items: [] }, status: 400, code: 'VALIDATION', field: 'body.items' },
      {
        body: { serverId: 'docs', items: [{ name: 'search_docs', overrides: { title: 5 } }] },
        status: 400,
        code: 'VALIDATION',
        field: 'body.items.0.overrides.title',
      },
      {
        body: { serverId: 'docs', items: [{ name: 'search_docs', exposedName: 'no spaces' }] },
        status: 400,
        code: 'NAME_INVALID',
        field: 'body.items.0.exposedName',
      },
      {
        body: { serverId: 'docs', items: [{ name: 'search_docs', exposedName: 'lookup' }] },
        status: 409,
        code: 'NAME_COLLISION',
        field: 'body.items.0.exposedName',
      },
      { body: { serverId: 'docs', items: [{ name: 'nope' }] }, status: 404, code: 'NOT_FOUND', field: 'body.items.0.name' },
      {
        body: { serverId: 'docs', items: [{ name: 'search_docs' }] },
        status: 400,
        code: 'HINTS_REQUIRED',
        field: 'body.items.0.overrides.annotations.destructiveHint',
      },
      { body: { serverId: 'ghost', items: [{ name: 'x' }] }, status: 404, code: 'NOT_FOUND', field: 'body.serverId' },
    ];
    for (const c of cases) {
      const draft = await api(registry.url, key, 'POST', '/v1/preview', c.body);
      expect({ status: draft.status, code: draft.body.error?.code, field: draft.body.error?.field }).toEqual({
        status: c.status,
        code: c.code,
        field: c.field,
      });
      const publish = await api(registry.url, key, 'POST', '/v1/publications', c.body);
      expect(publish.body).toEqual(draft.body);
      expect(publish.status).toBe(draft.status);
    }
    const version = await api(registry.url, key, 'POST', '/v1/preview?version=1999-01-01', draftBody);
    expect({ status: version.status, field: version.body.error?.field }).toEqual({ status: 400, field: 'query.version' });
    const surface = await api(registry.url, key, 'POST', '/v1/preview?surface=nope', draftBody);
    expect({ status: surface.status, field: surface.body.error?.field }).toEqual({ status: 404, field: 'query.surface' });
    const garbage = await api(registry.url, key, 'POST', '/v1/preview', '{not json');
    expect(garbage.status).toBe(400);
    expect(JSON.stringify(garbage.body)).not.toMatch(/at .*\.js/);
    expect(await state(key)).toEqual(before);
  });
});
