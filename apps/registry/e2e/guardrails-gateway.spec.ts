// The chain set through the registry API reaches a built gateway and runs there (issue 46 item 1):
// a webhook interceptor saved with its secret (sealed in the tenant document) is called signed
// with that secret, and its denial reaches the MCP client; a CEL rule denies by the caller's call.
// Against built registry and gateway, real Postgres/Redis and an SDK-built upstream.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listenLoopback, type LoopbackServer } from '@switchboard/testing';
import { Webhook } from 'standardwebhooks';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  mcpClient,
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

jest.setTimeout(120_000);

const SECRET = 'whsec_Z2F0ZXdheS1ndWFyZHJhaWxzLXNlY3JldA==';

describe('guardrails from the registry on a built gateway', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  let upstream: TestUpstream;
  let hook: LoopbackServer;
  let client: Client | undefined;
  let key: string;
  /** What the interceptor webhook received, and whether each request's signature verified with SECRET. */
  const seen: Array<{ verified: boolean; body: { name: string; payload: Record<string, unknown> } }> = [];

  beforeAll(async () => {
    db = await createDatabase();
    hook = await listenLoopback(
      async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const text = Buffer.concat(chunks).toString('utf8');
        let verified = true;
        try {
          new Webhook(SECRET).verify(text, {
            'webhook-id': String(req.headers['webhook-id']),
            'webhook-timestamp': String(req.headers['webhook-timestamp']),
            'webhook-signature': String(req.headers['webhook-signature']),
          });
        } catch {
          verified = false;
        }
        const body = JSON.parse(text) as (typeof seen)[number]['body'];
        seen.push({ verified, body });
        const denied = body.payload.note === 'forbidden';
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(denied ? { valid: false, messages: [{ message: 'notes may not say forbidden' }] } : { valid: true }));
      },
      { path: '/intercept' },
    );
    upstream = await startUpstream('notes', [{ name: 'add_note', description: 'Adds a note.', annotations: READ_ONLY_HINTS }]);
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    await registerAndDiscover(registry.url, key, { id: 'notes', name: 'Notes', url: upstream.url });
    expect((await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'notes', items: [{ name: 'add_note' }] })).status).toBe(
      200,
    );
    gateway = await startGateway(env, registry.url);
  });

  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
    await registry?.stop();
    await upstream?.close();
    await hook?.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  const call = async (note: string) =>
    (await client!.callTool({ name: 'add_note', arguments: { note } })) as { isError?: boolean; content: Array<{ text?: string }> };

  it('calls the webhook signed with the secret saved through the API, and relays its denial', async () => {
    const screen = {
      name: 'screen',
      type: 'validation',
      hook: { events: ['tools/call'], phase: 'request' },
      use: { webhook: { url: `http://localhost:${hook.port}/intercept`, timeoutMs: 3000, secret: SECRET } },
    };
    expect((await api(registry.url, key, 'PUT', '/v1/guardrails', { interceptors: [screen] })).body.pushed).toBe('ok');
    client = await mcpClient(`${gateway.url}/t/acme/mcp`);
    const denied = await until('the gateway applies the chain', async () => {
      const r = await call('forbidden');
      return r.isError ? r : undefined;
    });
    expect(denied.content[0]?.text).toBe('Denied by interceptor "screen": notes may not say forbidden');
    expect((await call('fine')).isError).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((s) => s.verified && s.body.name === 'screen')).toBe(true);
    expect(seen.map((s) => s.body.payload.note)).toEqual(expect.arrayContaining(['forbidden', 'fine']));
  });

  it('denies by a CEL rule saved through the API, naming the interceptor and the rule message', async () => {
    const policy = {
      name: 'policy',
      type: 'validation',
      hook: { events: ['tools/call'], phase: 'request' },
      use: { builtin: 'cel', rules: [{ name: 'long-notes', expr: 'size(args.note) > 10', message: 'notes are at most 10 characters' }] },
    };
    expect((await api(registry.url, key, 'PUT', '/v1/guardrails', { interceptors: [policy] })).body.pushed).toBe('ok');
    const denied = await until('the new chain is applied', async () => {
      const r = await call('a note longer than ten');
      return r.isError ? r : undefined;
    });
    expect(denied.content[0]?.text).toBe('Denied by interceptor "policy": notes are at most 10 characters');
    const before = seen.length;
    expect((await call('short')).isError).toBeFalsy();
    expect(seen.length).toBe(before);
  });
});
