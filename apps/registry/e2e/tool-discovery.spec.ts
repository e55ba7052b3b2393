// Progressive discovery settings through the registry API (GET/PUT/DELETE /v1/discovery) against a
// real registry process and a spawned gateway: a change reaches the gateway with the tenant
// document, the per-surface view says what clients get, and bad settings are refused naming the field.
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

type Surfaces = Record<string, Record<string, unknown>>;

describe('discovery settings (/v1/discovery)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let crm: TestUpstream;
  let key: string;

  const rpc = async (method: string, params: Record<string, unknown> = {}) => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  };
  const listed = async () => (((await rpc('tools/list')).result?.tools as { name: string }[] | undefined) ?? []).map((t) => t.name);

  beforeAll(async () => {
    db = await createDatabase();
    crm = await startUpstream('crm', [
      { name: 'lookup_contact', description: 'Finds a contact by email.', annotations: READ_ONLY_HINTS },
      { name: 'create_lead', description: 'Adds a new sales lead.', annotations: READ_ONLY_HINTS },
      { name: 'refund_order', description: 'Refunds an order to the customer.', annotations: READ_ONLY_HINTS },
    ]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: crm.url });
    const pub = await api(registry.url, key, 'POST', '/v1/publications', {
      serverId: 'crm',
      items: [{ name: 'lookup_contact' }, { name: 'create_lead' }, { name: 'refund_order' }],
    });
    expect(pub.status).toBe(200);
    gateway = await startGateway(env, registry.url);
    await until('gateway serves the catalog', async () => (await listed()).length === 3);
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await crm?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('starts off: every surface serves its full list', async () => {
    const res = await api(registry.url, key, 'GET', '/v1/discovery');
    expect(res.status).toBe(200);
    expect(res.body.discovery).toBeNull();
    expect((res.body.surfaces as Surfaces).generic).toMatchObject({
      mode: 'off',
      active: false,
      tools: 3,
      listed: ['create_lead', 'lookup_contact', 'refund_order'],
    });
  });

  it('a PUT turns discovery on, reports unknown pinned tools, and reaches the gateway', async () => {
    const res = await api(registry.url, key, 'PUT', '/v1/discovery', {
      mode: 'auto',
      threshold: 2,
      pinned: ['lookup_contact', 'ghost_tool'],
      surfaces: { claude: { mode: 'off' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.unknownPinned).toEqual(['ghost_tool']);
    expect((res.body.surfaces as Surfaces).generic).toMatchObject({
      mode: 'auto',
      threshold: 2,
      active: true,
      tools: 3,
      listed: ['search_tools', 'describe_tools', 'lookup_contact'],
    });
    expect((res.body.surfaces as Surfaces).claude).toMatchObject({
      mode: 'off',
      active: false,
      listed: ['create_lead', 'lookup_contact', 'refund_order'],
    });
    await until('gateway serves discovery mode', async () => (await listed()).includes('search_tools'));
    expect(await listed()).toEqual(['search_tools', 'describe_tools', 'lookup_contact']);
    const found = await rpc('tools/call', { name: 'search_tools', arguments: { query: 'give the customer their money back' } });
    expect(JSON.stringify(found.result)).toContain('refund_order');
    const called = await rpc('tools/call', { name: 'refund_order', arguments: { text: 'order 7' } });
    expect(JSON.stringify(called.result)).toContain('order 7');
    const audit = (await api(registry.url, key, 'GET', '/v1/audit')).body.entries as { action: string }[];
    expect(audit.map((e) => e.action)).toContain('discovery.update');
  });

  it.each([
    [{ mode: 'sometimes' }, 'body.mode'],
    [{ surfaces: { nowhere: { mode: 'on' } } }, 'body.surfaces.nowhere'],
    [{ pinned: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'body.pinned'],
    [{ threshold: -1 }, 'body.threshold'],
    [{ mode: 'on', extra: true }, 'body'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const res = await api(registry.url, key, 'PUT', '/v1/discovery', body);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(field);
  });

  it('a DELETE clears the settings and the gateway serves the full list again', async () => {
    const res = await api(registry.url, key, 'DELETE', '/v1/discovery');
    expect(res.status).toBe(200);
    expect(res.body.discovery).toBeNull();
    await until('gateway serves the full list', async () => !(await listed()).includes('search_tools'));
    expect(await listed()).toEqual(['create_lead', 'lookup_contact', 'refund_order']);
  });
});
