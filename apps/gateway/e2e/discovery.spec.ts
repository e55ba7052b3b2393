/**
 * Progressive discovery (issue 45): a 310-tool tenant in discovery mode served by two gateways
 * behind a round-robin TCP proxy. Every request opens a new connection, so consecutive requests
 * of one client land on alternate gateways: search → describe → call of a tool that is not in
 * the list must work without any state shared between them, for the legacy era (initialize,
 * SDK 1.x) and for stateless 2026-07-28 clients (SDK 2.x), and for a client that ignores the
 * meta-tools and calls a tool by name.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { roundRobinProxy } from '../../../scripts/round-robin-proxy.cjs';
import {
  FIXTURE_40,
  REPO_ROOT,
  modernHeaders,
  modernRequest,
  rpcError,
  rpcResult,
  startGateway,
  type Json,
  type TestGateway,
} from './support/harness';

const BENCH_CATALOG = path.join(REPO_ROOT, 'bench/discovery/catalog.json');
const PINNED = ['slack_post_message', 'github_create_issue'];

let a: TestGateway;
let b: TestGateway;
let proxy: { port: number; close(): Promise<void> };
let dir: string;
/** Requests each gateway received (both must serve every client's sequence). */
const served = { a: 0, b: 0 };
/** No keep-alive: each request is a new connection, so the proxy alternates gateways per request. */
const freshConnections = new Agent({ pipelining: 0 });
const freshFetch = ((url: string | URL, init?: RequestInit) =>
  undiciFetch(url, { ...(init as object), dispatcher: freshConnections })) as unknown as typeof fetch;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sb-discovery-'));
  const tools = (JSON.parse(await readFile(BENCH_CATALOG, 'utf8')) as { definition: Json }[]).map((t) => t.definition);
  const fixture = path.join(dir, 'saas-310.json');
  await writeFile(fixture, JSON.stringify({ tools }));
  const tenants = [
    {
      id: 'big',
      name: 'Big catalog',
      catalogs: [{ fixture }],
      discovery: { mode: 'auto', threshold: 40, pinned: PINNED, surfaces: { claude: { pinned: ['jira_create_issue'] } } },
    },
    // Under its threshold: the full list, and no meta-tools.
    { id: 'small', name: 'Forty tools', catalogs: [{ fixture: FIXTURE_40 }], discovery: { mode: 'auto', threshold: 50 } },
  ];
  const env = { GATEWAY_STATE_KEYS: randomBytes(32).toString('base64') };
  a = await startGateway({ tenants, env: { ...env, GATEWAY_REPLICA_ID: 'replica-a' }, listen: true });
  b = await startGateway({ tenants, env: { ...env, GATEWAY_REPLICA_ID: 'replica-b' }, listen: true });
  proxy = await roundRobinProxy([a.baseUrl, b.baseUrl].map((u) => Number(new URL(u).port)));
  a.fastify.server.on('request', () => served.a++);
  b.fastify.server.on('request', () => served.b++);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await a?.close();
  await b?.close();
  await freshConnections.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const mcpUrl = (tenant: string) => new URL(`http://127.0.0.1:${proxy.port}/t/${tenant}/mcp`);

/** The JSON a text tool result carries. */
function textJson(result: object): Json {
  const first = ((result as { content?: unknown }).content as { type: string; text: string }[])[0];
  expect(first?.type).toBe('text');
  return JSON.parse(first!.text) as Json;
}

test('legacy era (SDK 1.x): search → describe → call a tool not in the list, across two gateways', async () => {
  const client = new SdkClient({ name: 'e2e-legacy', version: '1.0.0' });
  const before = { ...served };
  try {
    await client.connect(new SdkTransport(mcpUrl('big'), { fetch: freshFetch }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_tools', 'describe_tools', 'github_create_issue', 'slack_post_message']);
    expect(tools[0]!.description).toContain('310 tools');

    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'give a customer their money back', limit: 5 } });
    const names = (textJson(found).tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain('stripe_create_refund');
    expect(found.structuredContent).toEqual(textJson(found));

    const described = await client.callTool({ name: 'describe_tools', arguments: { names: ['stripe_create_refund', 'no_such_tool'] } });
    const body = textJson(described);
    expect(body.unknown).toEqual(['no_such_tool']);
    expect((body.tools as Json[])[0]).toMatchObject({
      name: 'stripe_create_refund',
      inputSchema: { type: 'object', properties: { amount: { type: 'integer' } } },
    });

    const refund = await client.callTool({ name: 'stripe_create_refund', arguments: { charge: 'ch_1', amount: 500 } });
    expect(refund.isError).toBeFalsy();
    expect(textJson(refund)).toMatchObject({ tool: 'stripe_create_refund', arguments: { charge: 'ch_1', amount: 500 } });
    expect(served.a - before.a).toBeGreaterThanOrEqual(2);
    expect(served.b - before.b).toBeGreaterThanOrEqual(2);
  } finally {
    await client.close();
  }
});

test('2026-07-28 stateless (SDK 2.x): search → describe → call a tool not in the list, across two gateways', async () => {
  const client = new V2Client({ name: 'e2e-modern', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const before = { ...served };
  try {
    await client.connect(new V2Transport(mcpUrl('big'), { fetch: freshFetch }));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_tools', 'describe_tools', 'github_create_issue', 'slack_post_message']);

    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'what is on my calendar this week' } });
    const matches = (found.structuredContent as { tools: { name: string; description?: string }[] }).tools;
    expect(matches.map((t) => t.name)).toContain('google_calendar_list_events');
    expect(matches.every((t) => (t.description ?? '').length <= 160)).toBe(true);

    const described = await client.callTool({ name: 'describe_tools', arguments: { names: ['google_calendar_list_events'] } });
    expect((described.structuredContent as { tools: Json[] }).tools[0]).toMatchObject({
      name: 'google_calendar_list_events',
      title: 'List events',
    });

    const events = await client.callTool({ name: 'google_calendar_list_events', arguments: { calendar_id: 'primary' } });
    expect(events.isError).toBeFalsy();
    expect(textJson(events)).toMatchObject({ tool: 'google_calendar_list_events', arguments: { calendar_id: 'primary' } });
    expect(served.a - before.a).toBeGreaterThanOrEqual(2);
    expect(served.b - before.b).toBeGreaterThanOrEqual(2);
  } finally {
    await client.close();
  }
});

test('a client that ignores the meta-tools calls a tool by its name on both eras', async () => {
  const legacy = new SdkClient({ name: 'e2e-direct', version: '1.0.0' });
  const modern = new V2Client({ name: 'e2e-direct', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await legacy.connect(new SdkTransport(mcpUrl('big'), { fetch: freshFetch }));
    await modern.connect(new V2Transport(mcpUrl('big'), { fetch: freshFetch }));
    for (const client of [legacy, modern]) {
      const result = await client.callTool({ name: 'linear_create_issue', arguments: { team_id: 'ENG', title: 'Flaky test' } });
      expect(result.isError).toBeFalsy();
      expect(textJson(result)).toMatchObject({ tool: 'linear_create_issue', arguments: { title: 'Flaky test' } });
    }
  } finally {
    await legacy.close();
    await modern.close();
  }
});

test('the Claude surface lists its own pinned tools, marked always-load (its deferred-loading convention)', async () => {
  const res = await freshFetch(mcpUrl('big'), {
    method: 'POST',
    headers: modernHeaders('tools/list'),
    body: JSON.stringify(modernRequest(1, 'tools/list', {}, 'claude-code')),
  });
  const result = rpcResult({ body: await res.text() });
  const tools = result.tools as Json[];
  expect(tools.map((t) => t.name)).toEqual(['search_tools', 'describe_tools', 'jira_create_issue']);
  for (const tool of tools) expect(tool._meta).toEqual({ 'anthropic/alwaysLoad': true });
  // The modern list keeps its cache fields.
  expect(result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
});

test('bad meta-tool arguments are −32602 naming the field', async () => {
  const res = await freshFetch(mcpUrl('big'), {
    method: 'POST',
    headers: modernHeaders('tools/call', 'search_tools'),
    body: JSON.stringify(modernRequest(2, 'tools/call', { name: 'search_tools', arguments: { query: 'x'.repeat(501) } })),
  });
  const error = rpcError({ body: await res.text() });
  expect(error.code).toBe(-32602);
  expect(error.message).toContain('arguments.query');
});

test('a surface under its threshold serves its full list and no meta-tools', async () => {
  const client = new SdkClient({ name: 'e2e-small', version: '1.0.0' });
  try {
    await client.connect(new SdkTransport(mcpUrl('small'), { fetch: freshFetch }));
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(40);
    expect(tools.map((t) => t.name)).not.toContain('search_tools');
    const result = await client.callTool({ name: 'search_tools', arguments: { query: 'issue' } }).catch((err: Error) => err);
    expect(String(result)).toContain('Unknown tool: search_tools');
  } finally {
    await client.close();
  }
});
