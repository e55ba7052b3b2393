/**
 * Issue 18 item 2: JSON-RPC batches (2025-03-26, the version of a request without
 * MCP-Protocol-Version) are bounded in members and in response bytes, by default and per tenant,
 * at the real gateway against a real SDK-built upstream. Over a bound ⇒ one JSON-RPC error naming it.
 */
import { z } from 'zod';
import { POST_HEADERS, httpPost, json, startGateway, type TestGateway } from './support/harness';
import { startSchemaUpstream, type SchemaUpstream } from './support/schema-upstream';

let gw: TestGateway;
let shop: SchemaUpstream;

beforeAll(async () => {
  shop = await startSchemaUpstream('shop', [
    { name: 'blob', inputSchema: { tag: z.string() }, answer: ({ tag }) => `${String(tag)}:${'x'.repeat(1_000)}` },
    { name: 'ping', inputSchema: {}, answer: () => 'pong' },
  ]);
  gw = await startGateway({
    tenants: [
      { id: 'roomy', name: 'Roomy', catalogs: [{ upstream: { id: 'shop', url: shop.url } }] },
      {
        id: 'tight',
        name: 'Tight',
        catalogs: [{ upstream: { id: 'shop', url: shop.url } }],
        limits: { batchMaxItems: 3, batchMaxResponseBytes: 2_048 },
      },
    ],
    listen: true,
  });
});

afterAll(async () => {
  await gw?.close();
  await shop?.stop();
});

// No MCP-Protocol-Version header ⇒ 2025-03-26, the only version with batches.
const batch = (tenant: string, calls: Array<{ method: string; params?: unknown }>) =>
  httpPost(
    gw.mcpUrl(tenant),
    calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, ...c })),
    { ...POST_HEADERS },
  );
const blob = (tag: string) => ({ method: 'tools/call', params: { name: 'blob', arguments: { tag } } });

test('a batch over the default of 50 members is refused with one -32600 naming batchMaxItems, and nothing in it runs', async () => {
  const before = shop.calls.length;
  const res = await batch(
    'roomy',
    Array.from({ length: 51 }, (_, i) => blob(`t${i}`)),
  );
  expect(res.status).toBe(400);
  expect(json(res)).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: 'Batch of 51 messages exceeds the limit of 50 (batchMaxItems)',
      data: { limit: 'batchMaxItems', max: 50, count: 51 },
    },
  });
  expect(shop.calls.length).toBe(before);
});

test('a batch of exactly 50 members is answered member by member', async () => {
  const res = await batch(
    'roomy',
    Array.from({ length: 50 }, () => ({ method: 'tools/list' })),
  );
  expect(res.status).toBe(200);
  const answers = JSON.parse(res.body) as Array<{ id: number; result?: { tools: unknown[] } }>;
  expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(answers.every((a) => a.result?.tools.length === 2)).toBe(true);
});

test("a tenant's own batchMaxItems (3) applies to it and to no one else", async () => {
  const four = Array.from({ length: 4 }, () => ({ method: 'tools/list' }));
  const res = await batch('tight', four);
  expect(res.status).toBe(400);
  expect(json(res)).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: 'Batch of 4 messages exceeds the limit of 3 (batchMaxItems)',
      data: { limit: 'batchMaxItems', max: 3, count: 4 },
    },
  });
  expect((await batch('roomy', four)).status).toBe(200);
});

test('a batch whose answers pass batchMaxResponseBytes stops there: one -32600 naming the limit, later members never run', async () => {
  const before = shop.calls.length;
  // Each blob answer is ~1.1 KB: the second passes the tenant's 2,048 bytes, the third must not be called.
  const res = await batch('tight', [blob('a'), blob('b'), blob('c')]);
  expect(res.status).toBe(400);
  expect(json(res)).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: 'Batch response exceeds the limit of 2048 bytes (batchMaxResponseBytes); send fewer requests per batch',
      data: { limit: 'batchMaxResponseBytes', max: 2048 },
    },
  });
  expect(shop.calls.slice(before)).toEqual(['blob', 'blob']);
  // Under the bound the same tenant's batch is answered.
  const small = await batch('tight', [blob('a'), { method: 'tools/call', params: { name: 'ping', arguments: {} } }]);
  expect(small.status).toBe(200);
  expect((JSON.parse(small.body) as unknown[]).length).toBe(2);
});
