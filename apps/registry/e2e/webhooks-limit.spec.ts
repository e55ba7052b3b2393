// `limit.reached` from the real flow (issue 48): calls refused by a tenant's rate plan at a built
// gateway reach the registry through the usage stream, and the tenant's endpoint hears it once.
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
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(120_000);

describe('limit.reached webhook', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let crm: TestUpstream;
  let key: string;
  let nextId = 1;
  const receiver = new WebhookReceiver();

  const call = async (name: string) => {
    const res = await fetch(`${gateway.url}/t/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: {} } }),
    });
    return (await res.json()) as { result?: unknown; error?: { code: number } };
  };

  beforeAll(async () => {
    db = await createDatabase();
    crm = await startUpstream('crm', [{ name: 'lookup', annotations: READ_ONLY_HINTS }]);
    await receiver.start();
    registry = await startRegistry(env, db.url, { WEBHOOK_DISPATCH_MS: '50', WEBHOOK_BACKOFF_MS: '100' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: crm.url });
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'lookup' }] })).status).toBe(200);
    gateway = await startGateway(env, registry.url, { USAGE_FLUSH_MS: '50' });
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await crm?.close();
    await receiver.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  it('is sent once when calls are refused by the rate plan', async () => {
    const hook = await api(registry.url, key, 'POST', '/v1/webhooks', { url: receiver.url, events: ['limit.reached'] });
    receiver.secrets = [hook.body.secret as string];
    expect(
      (await api(registry.url, key, 'PUT', '/v1/limits', { rate: { tools: { lookup: { requestsPerSecond: 0.02, burst: 1 } } } })).status,
    ).toBe(200);
    await until('a call refused by the plan', async () => ((await call('lookup')).error?.code === -32029 ? true : undefined));
    for (let i = 0; i < 3; i++) expect((await call('lookup')).error?.code).toBe(-32029);
    const hit = await until('limit.reached at the receiver', () => receiver.delivered('limit.reached')[0], 30_000);
    expect(JSON.parse(hit.body).data).toMatchObject({ tenant: 'acme', limit: 'rate' });
    // Later refusals in the same window add to usage but send nothing more.
    expect((await call('lookup')).error?.code).toBe(-32029);
    await until('the later refusal drained', async () => {
      const rows = (await api(registry.url, key, 'GET', '/v1/usage?groupBy=tool')).body.usage as Array<{ rateLimited: number }> | undefined;
      return rows?.some((r) => r.rateLimited >= 5);
    });
    // The event is recorded in the drain's own transaction, so the log is complete once usage shows the refusal.
    const id = (hook.body.webhook as { id: string }).id;
    const log = (await api(registry.url, key, 'GET', `/v1/webhooks/${id}/deliveries`)).body.deliveries as Array<{ eventType: string }>;
    expect(log.filter((d) => d.eventType === 'limit.reached')).toHaveLength(1);
  });
});
