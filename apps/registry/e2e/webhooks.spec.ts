// Event webhooks end to end (issue 48): real Postgres, Redis, BullMQ and the built registry; a receiver
// in the test verifies every request with the Standard Webhooks reference library.
import { Webhook } from 'standardwebhooks';
import { listenLoopback, type LoopbackServer } from '@switchboard/testing';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  READ_ONLY_HINTS,
  registerAndDiscover,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';
import { WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

jest.setTimeout(120_000);

type Delivery = { id: string; eventType: string; status: string; attempts: number; lastStatus: number | null; lastError: string | null };

describe('event webhooks', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let key: string;
  let otherKey: string;
  let upstream: TestUpstream;
  const receiver = new WebhookReceiver();
  let hookId: string;

  beforeAll(async () => {
    db = await createDatabase();
    upstream = await startUpstream('crm', [{ name: 'lookup', annotations: READ_ONLY_HINTS }]);
    await receiver.start();
    registry = await startRegistry(env, db.url, {
      WEBHOOK_BACKOFF_MS: '200',
      WEBHOOK_DISPATCH_MS: '50',
      WEBHOOK_ATTEMPTS: '3',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_LOG_MAX: '10',
    });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    otherKey = await createTenant(registry.url, env.operatorKey, 'other');
  });

  afterAll(async () => {
    await registry?.stop();
    await upstream?.close();
    await receiver.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  const deliveries = async (id = hookId): Promise<Delivery[]> =>
    (await api(registry.url, key, 'GET', `/v1/webhooks/${id}/deliveries?limit=200`)).body.deliveries as Delivery[];
  const arrived = (type: string, after = 0) => until(`a verified ${type} at the receiver`, () => receiver.delivered(type).slice(after)[0]);

  it('subscribes an endpoint: the secret is shown once, bad input names the field, other tenants cannot see it', async () => {
    const created = await api(registry.url, key, 'POST', '/v1/webhooks', {
      url: receiver.url,
      events: ['publish.done', 'discovery.failed', 'upstream.change_pending_review'],
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    hookId = (created.body.webhook as { id: string }).id;
    receiver.secrets = [secret];
    const shown = await api(registry.url, key, 'GET', `/v1/webhooks/${hookId}`);
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).not.toContain(secret.slice(6));
    const list = await api(registry.url, key, 'GET', '/v1/webhooks');
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
    expect(list.body.events).toEqual([
      'discovery.failed',
      'upstream.change_pending_review',
      'publish.done',
      'connector.unlinked',
      'limit.reached',
    ]);

    const badEvent = await api(registry.url, key, 'POST', '/v1/webhooks', { url: receiver.url, events: ['publish.done', 'nope'] });
    expect([badEvent.status, badEvent.body.error?.field]).toEqual([400, 'body.events.1']);
    const privateUrl = await api(registry.url, key, 'POST', '/v1/webhooks', { url: 'http://10.0.0.7/hook', events: ['publish.done'] });
    expect([privateUrl.status, privateUrl.body.error?.code, privateUrl.body.error?.field]).toEqual([400, 'URL_REFUSED', 'body.url']);
    const metadata = await api(registry.url, key, 'POST', '/v1/webhooks', {
      url: 'https://169.254.169.254/latest',
      events: ['publish.done'],
    });
    expect([metadata.status, metadata.body.error?.field]).toEqual([400, 'body.url']);

    expect((await api(registry.url, otherKey, 'GET', `/v1/webhooks/${hookId}`)).status).toBe(404);
    expect((await api(registry.url, otherKey, 'POST', `/v1/webhooks/${hookId}/test`)).status).toBe(404);
    expect((await api(registry.url, otherKey, 'GET', '/v1/webhooks')).body.webhooks).toEqual([]);
  });

  it('emits publish.done from a real publication, signed so the reference library verifies it', async () => {
    await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: upstream.url });
    const published = await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'crm', items: [{ name: 'lookup' }] });
    expect(published.status).toBe(200);
    const hit = await arrived('publish.done');
    const event = JSON.parse(hit.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(event.data).toMatchObject({ tenant: 'acme', version: published.body.version, tools: 1 });
    expect(hit.id).toMatch(/^msg_/);
    expect(Math.abs(Number(hit.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect(hit.signature).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    await until('the log shows it delivered', async () => (await deliveries()).find((d) => d.id === hit.id && d.status === 'delivered'));
  });

  it('retries after a 500 with the same webhook-id (the idempotency key) and a fresh signature', async () => {
    receiver.failNext = 1;
    const before = receiver.received.length;
    const sent = await api(registry.url, key, 'POST', `/v1/webhooks/${hookId}/test`);
    expect(sent.status).toBe(202);
    const id = sent.body.deliveryId as string;
    await until('the retry accepted', () => receiver.delivered('webhook.test').find((r) => r.id === id));
    const attempts = receiver.received.slice(before).filter((r) => r.id === id);
    expect(attempts.map((r) => r.answered)).toEqual([500, 200]);
    expect(Number(attempts[1].timestamp)).toBeGreaterThanOrEqual(Number(attempts[0].timestamp));
    const logged = await until('the log shows two attempts', async () =>
      (await deliveries()).find((d) => d.id === id && d.status === 'delivered'),
    );
    expect(logged).toMatchObject({ attempts: 2, lastStatus: 200, eventType: 'webhook.test' });
  });

  it('a replayed, stale or tampered request is refused by the receiver', async () => {
    const original = receiver.delivered('publish.done')[0] as ReceivedWebhook;
    const headers = { 'webhook-id': original.id, 'webhook-timestamp': original.timestamp, 'webhook-signature': original.signature };
    // Replay of a request already accepted: same id, valid signature → refused as a repeat.
    expect(await receiver.post(headers, original.body)).toBe(409);
    // A validly signed request outside the timestamp tolerance (5 minutes) → refused.
    const stale = new Date(Date.now() - 10 * 60_000);
    const staleSig = new Webhook(receiver.secrets[0]).sign('msg_stale', stale, original.body);
    expect(
      await receiver.post(
        { 'webhook-id': 'msg_stale', 'webhook-timestamp': String(Math.floor(stale.getTime() / 1000)), 'webhook-signature': staleSig },
        original.body,
      ),
    ).toBe(400);
    // A moved timestamp or a changed body breaks the signature.
    expect(
      await receiver.post(
        { ...headers, 'webhook-id': 'msg_other', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) },
        original.body,
      ),
    ).toBe(400);
    expect(await receiver.post({ ...headers, 'webhook-id': 'msg_other' }, original.body.replace('acme', 'evil'))).toBe(400);
  });

  it('emits discovery.failed when discovery of an upstream finally fails', async () => {
    const created = await api(registry.url, key, 'POST', '/v1/servers', { id: 'dead', name: 'Dead', url: 'http://localhost:9/mcp' });
    expect(created.status).toBe(201);
    const hit = await until(
      'discovery.failed for dead',
      () => receiver.delivered('discovery.failed').find((r) => r.body.includes('"serverId":"dead"')),
      30_000,
    );
    expect(JSON.parse(hit.body).data).toMatchObject({ tenant: 'acme', serverId: 'dead', url: 'http://localhost:9/mcp' });
  });

  it('emits upstream.change_pending_review when a published tool changes upstream', async () => {
    const before = receiver.delivered('upstream.change_pending_review').length;
    const tool = { name: 'lookup', description: 'changed upstream', annotations: READ_ONLY_HINTS };
    await upstream.close();
    upstream = await startUpstream('crm', [tool]);
    await api(registry.url, key, 'PATCH', '/v1/servers/crm', { url: upstream.url });
    const hit = await arrived('upstream.change_pending_review', before);
    expect(JSON.parse(hit.body).data).toMatchObject({ serverId: 'crm', changed: 1, pendingReview: 1 });
  });

  it('gives up after WEBHOOK_ATTEMPTS and does not follow a redirect', async () => {
    receiver.failNext = 3;
    const failing = (await api(registry.url, key, 'POST', `/v1/webhooks/${hookId}/test`)).body.deliveryId as string;
    const failed = await until('marked failed after three 500s', async () =>
      (await deliveries()).find((d) => d.id === failing && d.status === 'failed'),
    );
    expect(failed).toMatchObject({ attempts: 3, lastStatus: 500 });
    expect(receiver.received.filter((r) => r.id === failing).map((r) => r.answered)).toEqual([500, 500, 500]);

    // A receiver that redirects (to a private address here) is a refusal, never followed.
    let hits = 0;
    const redirecting: LoopbackServer = await listenLoopback(async (_req, res) => {
      hits++;
      res.writeHead(307, { location: 'http://10.0.0.9/steal' }).end();
    });
    try {
      const other = await api(registry.url, key, 'POST', '/v1/webhooks', {
        url: `http://localhost:${redirecting.port}/hook`,
        events: ['publish.done'],
      });
      const otherId = (other.body.webhook as { id: string }).id;
      const sent = (await api(registry.url, key, 'POST', `/v1/webhooks/${otherId}/test`)).body.deliveryId as string;
      const done = await until('the redirecting endpoint failed', async () =>
        (await deliveries(otherId)).find((d) => d.id === sent && d.status === 'failed'),
      );
      expect(done).toMatchObject({ attempts: 3, lastStatus: 307 });
      expect(hits).toBe(3);
      expect((await api(registry.url, key, 'DELETE', `/v1/webhooks/${otherId}`)).status).toBe(200);
    } finally {
      await redirecting.stop();
    }
  });

  it('bounds the test events outstanding per endpoint', async () => {
    // An endpoint that never answers keeps its deliveries outstanding (each attempt waits WEBHOOK_TIMEOUT_MS).
    const hanging: LoopbackServer = await listenLoopback(() => new Promise<void>(() => undefined));
    try {
      const created = await api(registry.url, key, 'POST', '/v1/webhooks', {
        url: `http://localhost:${hanging.port}/hook`,
        events: ['publish.done'],
      });
      const id = (created.body.webhook as { id: string }).id;
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await api(registry.url, key, 'POST', `/v1/webhooks/${id}/test`)).status);
      expect(statuses.slice(0, 20).every((s) => s === 202)).toBe(true);
      const refused = await api(registry.url, key, 'POST', `/v1/webhooks/${id}/test`);
      expect([refused.status, refused.body.error?.field]).toEqual([409, 'params.id']);
      expect((await api(registry.url, key, 'DELETE', `/v1/webhooks/${id}`)).status).toBe(200);
    } finally {
      await hanging.stop();
    }
  });

  it('emits connector.unlinked when a connector is removed', async () => {
    const patched = await api(registry.url, key, 'PATCH', `/v1/webhooks/${hookId}`, {
      events: ['publish.done', 'discovery.failed', 'upstream.change_pending_review', 'connector.unlinked'],
    });
    expect(patched.body.events).toContain('connector.unlinked');
    const issuer: LoopbackServer = await listenLoopback(async (_req, res) => {
      const base = `http://localhost:${issuer.port}`;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token` }));
    });
    try {
      const set = await api(registry.url, key, 'PUT', '/v1/servers/crm/connector', {
        issuer: `http://localhost:${issuer.port}`,
        clientId: 'sb-crm',
      });
      expect(set.status).toBe(200);
      expect((await api(registry.url, key, 'DELETE', '/v1/servers/crm/connector')).status).toBe(200);
      const hit = await arrived('connector.unlinked');
      expect(JSON.parse(hit.body).data).toMatchObject({ tenant: 'acme', serverId: 'crm', what: 'connector' });
    } finally {
      await issuer.stop();
    }
  });

  it('rotation: both secrets sign during the window; with no window the old secret stops verifying', async () => {
    const old = receiver.secrets[0];
    const rotated = await api(registry.url, key, 'POST', `/v1/webhooks/${hookId}/rotate`, { graceSeconds: 3600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    expect((rotated.body.webhook as { previousSecretExpiresAt: string | null }).previousSecretExpiresAt).not.toBeNull();
    for (const only of [[old], [fresh]]) {
      receiver.secrets = only;
      const id = (await api(registry.url, key, 'POST', `/v1/webhooks/${hookId}/test`)).body.deliveryId as string;
      await until(`verified with ${only[0] === old ? 'the old' : 'the new'} secret`, () => receiver.delivered().find((r) => r.id === id));
    }
    const again = await api(registry.url, key, 'POST', `/v1/webhooks/${hookId}/rotate`, { graceSeconds: 0 });
    const newest = again.body.secret as string;
    receiver.secrets = [fresh];
    const refusedId = (await api(registry.url, key, 'POST', `/v1/webhooks/${hookId}/test`)).body.deliveryId as string;
    await until('refused with the retired secret', () => receiver.received.find((r) => r.id === refusedId && r.answered === 400));
    receiver.secrets = [newest];
    await until('the retry verifies with the newest secret', () => receiver.delivered().find((r) => r.id === refusedId));
  });

  it('keeps the delivery log bounded per tenant (WEBHOOK_LOG_MAX)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await api(registry.url, key, 'POST', `/v1/webhooks/${hookId}/test`)).body.deliveryId as string);
    await until('all twelve delivered', () => ids.every((id) => receiver.delivered().some((r) => r.id === id)));
    await until('the log pruned to 10', async () => (await deliveries()).length === 10, 15_000);
  });
});
