/**
 * Issue 18 item 1: a tenant's upstream schema cannot make any request wait. Every `pattern` runs
 * on RE2 (linear time) at the real gateway against real SDK-built upstreams; a pattern RE2 cannot
 * run refuses the tool instead of falling back to V8's backtracking engine.
 */
import { z } from 'zod';
import { LEGACY, POST_HEADERS, finalMessage, httpPost, startGateway, type Json, type TestGateway } from './support/harness';
import { startSchemaUpstream, type SchemaUpstream } from './support/schema-upstream';

let gw: TestGateway;
let evil: SchemaUpstream;
let healthy: SchemaUpstream;
const headers = { ...POST_HEADERS, 'mcp-protocol-version': LEGACY };
let nextId = 1;

beforeAll(async () => {
  [evil, healthy] = await Promise.all([
    startSchemaUpstream('evil', [
      // ~2^n steps on V8 for n × 'a' + '!': 40 characters would hold the event loop for days.
      { name: 'redos', inputSchema: { s: z.string().regex(/^(a+)+$/) } },
      { name: 'lookahead', inputSchema: { code: z.string().regex(/^(?=.*\d).+$/) } },
    ]),
    startSchemaUpstream('healthy', [{ name: 'ping', inputSchema: {}, answer: () => 'pong' }]),
  ]);
  gw = await startGateway({
    tenants: [
      { id: 'mallory', name: 'Mallory', catalogs: [{ upstream: { id: 'evil', url: evil.url, prefix: 'evil_' } }] },
      { id: 'alice', name: 'Alice', catalogs: [{ upstream: { id: 'healthy', url: healthy.url, prefix: 'h_' } }] },
    ],
    listen: true,
  });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([evil?.stop(), healthy?.stop()]);
});

async function call(tenant: string, name: string, args: Json): Promise<{ isError?: boolean; text: string }> {
  const res = await httpPost(
    gw.mcpUrl(tenant),
    { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
    headers,
  );
  expect(res.status).toBe(200);
  const result = finalMessage(res).result as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: result.isError, text: result.content.map((c) => c.text).join('\n') };
}

test('a tools/call with 40 × "a" + "!" against ^(a+)+$ answers with the validation error, never reaching the upstream', async () => {
  const res = await call('mallory', 'evil_redos', { s: `${'a'.repeat(40)}!` });
  expect(res).toEqual({ isError: true, text: 'Invalid arguments for tool evil_redos: s: must match pattern "^(a+)+$"' });
  expect(evil.calls).not.toContain('redos');
  // A matching value still goes through.
  expect(await call('mallory', 'evil_redos', { s: 'aaaa' })).toEqual({ isError: undefined, text: '{"s":"aaaa"}' });
});

test("another tenant's requests are served while a flood of pathological calls is in flight", async () => {
  // Started together, in this order: on a backtracking engine the first pathological call would
  // hold the event loop and nothing after it (Alice included) could answer before the test times out.
  const flood = Array.from({ length: 20 }, (_, i) => call('mallory', 'evil_redos', { s: `${'a'.repeat(40 + i)}!` }));
  const alice = call('alice', 'h_ping', {});
  const [aliceRes, ...floodRes] = await Promise.all([alice, ...flood]);
  expect(aliceRes).toEqual({ isError: undefined, text: 'pong' });
  for (const r of floodRes) expect(r.text).toBe('Invalid arguments for tool evil_redos: s: must match pattern "^(a+)+$"');
});

test('a tool whose pattern needs a backtracking engine is refused, naming the JSON pointer, and its upstream never sees the call', async () => {
  const res = await call('mallory', 'evil_lookahead', { code: 'a1' });
  expect(res).toEqual({
    isError: true,
    text: 'Invalid arguments for tool evil_lookahead: inputSchema/properties/code/pattern: pattern is not supported (lookahead (?=…) (needs a backtracking engine)); the tool is refused until its server drops it',
  });
  expect(evil.calls).not.toContain('lookahead');
});
