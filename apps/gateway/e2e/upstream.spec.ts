/**
 * tools/call routed to upstream MCP servers built with the official SDK 1.x (issue 2, item 4):
 * discovery at boot, the upstream's own credential (never the client's token), stateful
 * sessions re-initialised after the upstream forgets them, a hanging upstream cut off at the
 * timeout, and a dead upstream that takes down only its own tools.
 */
import {
  LEGACY,
  POST_HEADERS,
  finalMessage,
  httpPost,
  modernHeaders,
  modernRequest,
  startGateway,
  type Json,
  type TestGateway,
} from './support/harness';
import { TestUpstream } from '@switchboard/testing';

const UPSTREAM_TIMEOUT_MS = 3_000;
const CLIENT_TOKEN = 'Bearer client-token-must-not-leak';

let gw: TestGateway;
let alpha: TestUpstream;
let beta: TestUpstream;
let gamma: TestUpstream;

beforeAll(async () => {
  [alpha, beta, gamma] = await Promise.all([
    TestUpstream.start({ stateful: false, name: 'alpha' }),
    TestUpstream.start({ stateful: true, name: 'beta' }),
    TestUpstream.start({ stateful: false, name: 'gamma' }),
  ]);
  gw = await startGateway({
    tenants: [
      {
        id: 'acme',
        name: 'Acme',
        catalogs: [
          { builtin: 'demo' },
          {
            upstream: {
              id: 'alpha',
              url: alpha.url,
              headers: { authorization: 'Bearer alpha-upstream-cred', 'x-upstream-key': 'alpha-key' },
              prefix: 'alpha_',
            },
          },
          { upstream: { id: 'beta', url: beta.url, stateful: true, headers: { 'x-api-key': 'beta-key' }, prefix: 'beta_' } },
          { upstream: { id: 'gamma', url: gamma.url, prefix: 'gamma_' } },
        ],
      },
    ],
    env: { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) },
    listen: true,
  });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([alpha?.stop(), beta?.stop(), gamma?.stop()]);
});

const clientHeaders = { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, authorization: CLIENT_TOKEN };
let nextId = 1;

async function call(name: string, args: Json = {}): Promise<{ isError?: boolean; text: string; result: Json }> {
  const res = await httpPost(
    gw.mcpUrl('acme'),
    { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
    clientHeaders,
  );
  expect(res.status).toBe(200);
  const message = finalMessage(res);
  const result = message.result as Json | undefined;
  if (!result) throw new Error(`tools/call ${name} answered with an error: ${JSON.stringify(message.error)}`);
  const text = ((result.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
  return { isError: result.isError as boolean | undefined, text, result };
}

async function listToolNames(): Promise<string[]> {
  const res = await httpPost(gw.mcpUrl('acme'), { jsonrpc: '2.0', id: nextId++, method: 'tools/list' }, clientHeaders);
  expect(res.status).toBe(200);
  return ((finalMessage(res).result as { tools: Array<{ name: string }> }).tools ?? []).map((t) => t.name);
}

test('upstream tools are discovered at boot and listed next to the in-process ones', async () => {
  const names = await listToolNames();
  expect(names).toEqual(expect.arrayContaining(['echo', 'alpha_shout', 'alpha_whoami', 'alpha_hang', 'beta_shout', 'gamma_shout']));
  // Discovery itself used the upstream's credential.
  expect(alpha.requests('tools/list').length).toBeGreaterThanOrEqual(1);
  for (const seen of alpha.requests('tools/list')) expect(seen.headers.authorization).toBe('Bearer alpha-upstream-cred');
});

test('upstreams offering the same resource URI do not stop the tenant: the first one is served', async () => {
  const res = await httpPost(gw.mcpUrl('acme'), { jsonrpc: '2.0', id: nextId++, method: 'resources/list' }, clientHeaders);
  const uris = (finalMessage(res).result as { resources: Array<{ uri: string }> }).resources.map((r) => r.uri);
  expect(uris.filter((u) => u === 'upstream://readme')).toHaveLength(1);
  const read = await httpPost(
    gw.mcpUrl('acme'),
    { jsonrpc: '2.0', id: nextId++, method: 'resources/read', params: { uri: 'upstream://readme' } },
    clientHeaders,
  );
  expect(JSON.stringify(finalMessage(read).result)).toContain('readme of alpha');
});

test('a call reaches a stateless upstream with its configured credential, never the client token', async () => {
  const before = alpha.requests('tools/call').length;
  const out = await call('alpha_whoami');
  expect(out.isError).toBeFalsy();
  expect(out.text).toBe('authorization=Bearer alpha-upstream-cred');
  const calls = alpha.requests('tools/call').slice(before);
  expect(calls).toHaveLength(1);
  expect(calls[0].headers.authorization).toBe('Bearer alpha-upstream-cred');
  expect(calls[0].headers['x-upstream-key']).toBe('alpha-key');

  const shout = await call('alpha_shout', { text: 'hi' });
  expect(shout.text).toBe('HI (from alpha)');
});

test('a stateful upstream gets its own header and no Authorization at all', async () => {
  const out = await call('beta_whoami');
  expect(out.isError).toBeFalsy();
  expect(out.text).toBe('authorization=undefined');
  const calls = beta.requests('tools/call');
  expect(calls.length).toBeGreaterThanOrEqual(1);
  for (const seen of calls) {
    expect(seen.headers['x-api-key']).toBe('beta-key');
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['mcp-session-id']).toBeTruthy();
  }
});

test('the modern era routes to upstreams too', async () => {
  const res = await httpPost(
    gw.mcpUrl('acme'),
    modernRequest(nextId++, 'tools/call', { name: 'alpha_shout', arguments: { text: 'modern' } }),
    { ...modernHeaders('tools/call', 'alpha_shout'), authorization: CLIENT_TOKEN },
  );
  expect(res.status).toBe(200);
  const result = finalMessage(res).result as Json;
  expect(result.resultType).toBe('complete');
  expect(JSON.stringify(result.content)).toContain('MODERN (from alpha)');
});

test('a stateful upstream that forgot its session is re-initialised and the call still succeeds', async () => {
  const first = await call('beta_shout', { text: 'one' });
  expect(first.text).toBe('ONE (from beta)');
  const sessionsBefore = beta.sessionsCreated;
  expect(sessionsBefore).toBeGreaterThanOrEqual(1);

  await beta.dropSessions();

  const second = await call('beta_shout', { text: 'two' });
  expect(second.isError).toBeFalsy();
  expect(second.text).toBe('TWO (from beta)');
  expect(beta.sessionsCreated).toBe(sessionsBefore + 1);
  // The new session also carries the upstream's credential.
  const inits = beta.requests('initialize');
  expect(inits[inits.length - 1].headers['x-api-key']).toBe('beta-key');
});

test('a hanging upstream yields a clear isError result within the timeout', async () => {
  const out = await call('alpha_hang');
  expect(out.isError).toBe(true);
  expect(out.text).toContain('alpha');
  // Bounded by the upstream timeout, not by the transport's longer call limit: the error names which one fired.
  expect(out.text).toMatch(/did not answer|timed? ?out/i);
  expect(out.text).toContain(String(UPSTREAM_TIMEOUT_MS));
  // The gateway still answers normally afterwards.
  expect((await call('alpha_shout', { text: 'after' })).text).toBe('AFTER (from alpha)');
});

test('an upstream that is down ⇒ isError naming the server; other tools and tools/list keep working', async () => {
  expect((await call('gamma_shout', { text: 'up' })).text).toBe('UP (from gamma)');
  await gamma.stop();

  const down = await call('gamma_shout', { text: 'down' });
  expect(down.isError).toBe(true);
  expect(down.text).toContain('gamma');
  expect(down.text).toMatch(/unavailable|ECONNREFUSED|fetch failed/i);

  expect((await call('echo', { text: 'still here' })).result.structuredContent).toEqual({ text: 'still here' });
  expect((await call('alpha_shout', { text: 'alive' })).text).toBe('ALIVE (from alpha)');
  expect((await call('beta_shout', { text: 'alive' })).text).toBe('ALIVE (from beta)');
  expect(await listToolNames()).toEqual(expect.arrayContaining(['echo', 'alpha_shout', 'gamma_shout']));
});

test('no upstream ever saw the client token', () => {
  for (const upstream of [alpha, beta, gamma]) {
    expect(upstream.seen.length).toBeGreaterThan(0);
    for (const seen of upstream.seen) expect(JSON.stringify(seen.headers)).not.toContain('client-token-must-not-leak');
  }
});
