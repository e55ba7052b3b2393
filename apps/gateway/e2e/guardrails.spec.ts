/**
 * Issue 46 items 1-2: tenant interceptors at a built gateway (child process, file tenants) in
 * front of an SDK-built upstream — an enforced denial, the same in audit mode, PII redacted in
 * text and structured content, and webhook interceptors (allow, deny, timeout fail-open and
 * fail-closed, an oversized answer), each webhook request signed the Standard Webhooks way.
 */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listenLoopback, pollUntil, readJsonBody, serveStateless, spawnApp, type LoopbackServer, type Proc } from '@switchboard/testing';
import { stringify } from 'yaml';
import { z } from 'zod';
import { LEGACY, POST_HEADERS, finalMessage, httpPost, type Json } from './support/harness';

const SECRET = `whsec_${Buffer.from('interceptor-test-secret-bytes').toString('base64')}`;
const PII_TEXT = 'Contact jane.doe@example.com or card 4111 1111 1111 1111';

let dir: string;
let upstream: LoopbackServer;
let hooks: LoopbackServer;
let gateway: Proc;
const reached: string[] = [];
const hookCalls: Array<{ name: string; signed: boolean; body: Json }> = [];
const held: ServerResponse[] = [];
let nextId = 1;

function startUpstream(): Promise<LoopbackServer> {
  return listenLoopback(async (req, res) => {
    const body = await readJsonBody(req);
    const msg = body as { method?: string; params?: { name?: string } };
    if (msg.method === 'tools/call' && msg.params?.name) reached.push(msg.params.name);
    const server = new McpServer({ name: 'crm', version: '1.0.0' });
    const echo = async (args: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(args) }] });
    for (const name of ['echo', 'hook_allow', 'hook_deny', 'hook_slow_open', 'hook_slow_closed', 'hook_big']) {
      server.registerTool(name, { description: name, inputSchema: { note: z.string().optional() } }, echo);
    }
    server.registerTool(
      'profile',
      { description: 'A customer profile', inputSchema: {}, outputSchema: { email: z.string(), card: z.string(), age: z.number() } },
      async () => ({
        content: [{ type: 'text', text: PII_TEXT }],
        structuredContent: { email: 'jane.doe@example.com', card: '4111 1111 1111 1111', age: 41 },
      }),
    );
    server.registerPrompt('greet', { description: 'A greeting' }, async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'Write to jane.doe@example.com' } }],
    }));
    server.registerResource('card', 'crm://card', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'card 4111 1111 1111 1111' }],
    }));
    await serveStateless(server, req, res, body, { json: true });
  });
}

/** The tenant's webhook: answers by interceptor name, and checks each request's signature. */
function startHooks(): Promise<LoopbackServer> {
  return listenLoopback(async (req, res) => {
    const raw = await new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => resolve(text));
    });
    const id = String(req.headers['webhook-id']);
    const ts = String(req.headers['webhook-timestamp']);
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${ts}.${raw}`).digest('base64')}`;
    const body = JSON.parse(raw) as Json;
    const name = String(body.name);
    hookCalls.push({ name, signed: req.headers['webhook-signature'] === expected, body });
    const answer = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (name === 'allow-hook') answer({ valid: true });
    else if (name === 'deny-hook') answer({ valid: false, messages: [{ message: 'refunds over 500 need finance', severity: 'error' }] });
    else if (name === 'big-hook') answer({ valid: true, padding: 'x'.repeat(8_192) });
    else held.push(res); // the slow hooks never answer in time
  });
}

const interceptor = (name: string, extra: Json): Json => ({
  name,
  type: 'validation',
  hook: { events: ['tools/call'], phase: 'request' },
  ...extra,
});
// The slow hooks time out at 300 ms; the others get the most a tenant may set, as the machine may be loaded.
const webhook = (name: string, tool: string, extra: Json = {}, timeoutMs = 10_000): Json =>
  interceptor(name, {
    match: { tools: [tool] },
    use: { webhook: { url: hooks.url.replace(/\/mcp$/, '/hook'), timeoutMs, maxBytes: 1_024, secret: SECRET } },
    ...extra,
  });

beforeAll(async () => {
  [upstream, hooks] = await Promise.all([startUpstream(), startHooks()]);
  dir = await mkdtemp(path.join(tmpdir(), 'sb-guardrails-'));
  const catalogs = [{ upstream: { id: 'crm', url: upstream.url } }];
  const tenant = (id: string, interceptors: Json[]) => ({ id, name: id, catalogs, guardrails: { interceptors } });
  const noPii = (mode: string) => interceptor(`no-pii-${mode}`, { mode, use: { builtin: 'pii', kinds: ['email', 'card'] } });
  const tenants = [
    { id: 'plain', name: 'plain', catalogs },
    tenant('enforce', [
      noPii('enforce'),
      { name: 'no-cards-out', type: 'validation', hook: { events: ['resources/read'] }, use: { builtin: 'pii', kinds: ['card'] } },
    ]),
    tenant('audit', [noPii('audit')]),
    tenant('redact', [
      {
        name: 'redact',
        type: 'mutation',
        hook: { events: ['tools/call', 'prompts/get', 'resources/read'], phase: 'response' },
        use: { builtin: 'pii' },
      },
    ]),
    tenant('hooks', [
      webhook('allow-hook', 'hook_allow'),
      webhook('deny-hook', 'hook_deny'),
      webhook('open-hook', 'hook_slow_open', { failOpen: true }, 300),
      webhook('closed-hook', 'hook_slow_closed', {}, 300),
      webhook('big-hook', 'hook_big'),
    ]),
  ];
  const file = path.join(dir, 'tenants.yaml');
  await writeFile(file, stringify({ tenants }));
  gateway = await spawnApp(
    'gateway',
    'apps/gateway/dist/main.js',
    { TENANTS_FILE: file, GATEWAY_PORT: '0', LOG_LEVEL: 'info', UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1' },
    /gateway listening on (http:\/\/\S+)/,
    60_000,
  );
}, 90_000);

afterAll(async () => {
  for (const res of held) res.destroy();
  await gateway?.stop();
  await Promise.all([upstream?.stop(), hooks?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function rpc(tenant: string, method: string, params: Json): Promise<Json> {
  const res = await httpPost(
    `${gateway.url}/t/${tenant}/mcp`,
    { jsonrpc: '2.0', id: nextId++, method, params },
    { ...POST_HEADERS, 'mcp-protocol-version': LEGACY },
  );
  expect(res.status).toBe(200);
  return finalMessage(res);
}

async function call(tenant: string, name: string, args: Json = {}): Promise<{ isError?: boolean; text: string; structured?: Json }> {
  const payload = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } };
  const res = await httpPost(`${gateway.url}/t/${tenant}/mcp`, payload, { ...POST_HEADERS, 'mcp-protocol-version': LEGACY });
  expect(res.status).toBe(200);
  const result = finalMessage(res).result as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Json };
  return { isError: result.isError, text: result.content.map((c) => c.text).join('\n'), structured: result.structuredContent };
}

/** The gateway's log lines recording an interceptor's outcome. */
function outcomes(name: string): Json[] {
  return gateway
    .output()
    .split('\n')
    .filter((line) => line.includes('"guardrail outcome"') && line.includes(`"interceptor":"${name}"`))
    .map((line) => (JSON.parse(line) as { guardrail: Json }).guardrail);
}

test('an enforced validator denies the call, naming itself and the reason, and the upstream never sees it', async () => {
  const before = reached.length;
  const res = await call('enforce', 'echo', { note: 'mail jane.doe@example.com' });
  expect(res).toEqual({ isError: true, text: 'Denied by interceptor "no-pii-enforce": arguments contain email', structured: undefined });
  expect(reached.slice(before)).toEqual([]);
  expect(await call('enforce', 'echo', { note: 'nothing personal' })).toEqual({
    isError: undefined,
    text: '{"note":"nothing personal"}',
    structured: undefined,
  });
});

test('the same validator in audit mode lets the call through and records what it would have denied', async () => {
  const res = await call('audit', 'echo', { note: 'mail jane.doe@example.com' });
  expect(res).toEqual({ isError: undefined, text: '{"note":"mail jane.doe@example.com"}', structured: undefined });
  const seen = await pollUntil('the audit record', () => outcomes('no-pii-audit')[0], 15_000);
  expect(seen).toMatchObject({
    point: 'tools/call:request',
    server: 'crm',
    target: 'echo',
    mode: 'audit',
    outcome: 'deny',
    applied: false,
    reason: 'arguments contain email',
  });
});

test('PII is redacted in text and structured content, types kept; a tenant without interceptors gets the result as is', async () => {
  expect(await call('redact', 'profile')).toEqual({
    isError: undefined,
    text: 'Contact [REDACTED:email] or card [REDACTED:card]',
    structured: { email: '[REDACTED:email]', card: '[REDACTED:card]', age: 41 },
  });
  expect(await call('plain', 'profile')).toEqual({
    isError: undefined,
    text: PII_TEXT,
    structured: { email: 'jane.doe@example.com', card: '4111 1111 1111 1111', age: 41 },
  });
});

test('a webhook validator that allows lets the call through; its request is signed and SEP-2624 shaped', async () => {
  expect(await call('hooks', 'hook_allow', { note: 'hi' })).toEqual({ isError: undefined, text: '{"note":"hi"}', structured: undefined });
  const sent = hookCalls.find((c) => c.name === 'allow-hook');
  expect(sent?.signed).toBe(true);
  expect(sent?.body).toMatchObject({
    name: 'allow-hook',
    event: 'tools/call',
    phase: 'request',
    payload: { note: 'hi' },
    context: { server: 'crm', target: 'hook_allow' },
  });
});

test('a webhook validator that denies blocks the call with its message', async () => {
  const before = reached.length;
  expect(await call('hooks', 'hook_deny')).toEqual({
    isError: true,
    text: 'Denied by interceptor "deny-hook": refunds over 500 need finance',
    structured: undefined,
  });
  expect(reached.slice(before)).toEqual([]);
});

test('a webhook that times out: failOpen true lets the call through, failOpen false denies without internal detail', async () => {
  expect(await call('hooks', 'hook_slow_open')).toEqual({ isError: undefined, text: '{}', structured: undefined });
  expect(await call('hooks', 'hook_slow_closed')).toEqual({
    isError: true,
    text: 'Denied by interceptor "closed-hook": interceptor unavailable',
    structured: undefined,
  });
  const failure = await pollUntil('the failure record', () => outcomes('closed-hook')[0], 15_000);
  expect(failure).toMatchObject({ outcome: 'error', applied: true });
  expect(String(failure.reason)).toMatch(/timeout|aborted/i);
});

test('a webhook answer over maxBytes fails the interceptor (fail-closed)', async () => {
  expect(await call('hooks', 'hook_big')).toEqual({
    isError: true,
    text: 'Denied by interceptor "big-hook": interceptor unavailable',
    structured: undefined,
  });
  const failure = await pollUntil('the failure record', () => outcomes('big-hook')[0], 15_000);
  expect(String(failure.reason)).toMatch(/1024|too large|exceed/i);
});

test('prompts/get and resources/read results are redacted too, and a result validator denies with a JSON-RPC error', async () => {
  expect((await rpc('redact', 'prompts/get', { name: 'greet' })).result).toMatchObject({
    messages: [{ role: 'user', content: { type: 'text', text: 'Write to [REDACTED:email]' } }],
  });
  expect((await rpc('redact', 'resources/read', { uri: 'crm://card' })).result).toMatchObject({
    contents: [{ uri: 'crm://card', mimeType: 'text/plain', text: 'card [REDACTED:card]' }],
  });
  expect((await rpc('enforce', 'resources/read', { uri: 'crm://card' })).error).toEqual({
    code: -32600,
    message: 'Denied by interceptor "no-cards-out": result contains card',
    data: { interceptor: 'no-cards-out', reason: 'result contains card' },
  });
});
