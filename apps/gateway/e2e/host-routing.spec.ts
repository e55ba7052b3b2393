/**
 * Host-based tenants (`https://{tenant}.{GATEWAY_DOMAIN}/mcp`) beside the path-based layout:
 * the Host picks the tenant, an unknown subdomain is a 404 with a JSON-RPC body, and a Host
 * outside the tenant's allow-list is refused on the path-based URL.
 */
import { LEGACY, POST_HEADERS, json, rpcError, startGateway, type TestGateway } from './support/harness';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    tenants: [
      { id: 'acme', name: 'Acme', catalogs: [{ builtin: 'demo' }] },
      { id: 'beta', name: 'Beta', catalogs: [{ builtin: 'conformance' }] },
    ],
    env: { GATEWAY_DOMAIN: 'mcp.example.com', GATEWAY_PUBLIC_URL: 'https://gw.example.com' },
  });
});

afterAll(async () => {
  await gw?.close();
});

const list = (url: string, host: string) =>
  gw.inject({
    method: 'POST',
    url,
    headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, host },
    payload: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
    }),
  });

test('the Host picks the tenant on /mcp', async () => {
  const acme = await list('/mcp', 'acme.mcp.example.com');
  expect(acme.statusCode).toBe(200);
  expect((json(acme).result as { serverInfo: { title?: string } }).serverInfo.title).toBe('Acme');
  const beta = await list('/mcp', 'beta.mcp.example.com:443');
  expect(beta.statusCode).toBe(200);
  expect((json(beta).result as { serverInfo: { title?: string } }).serverInfo.title).toBe('Beta');
});

test('an unknown subdomain ⇒ 404 with a JSON-RPC error body', async () => {
  const res = await list('/mcp', 'nobody.mcp.example.com');
  expect(res.statusCode).toBe(404);
  expect(json(res).jsonrpc).toBe('2.0');
  expect(rpcError(res).message).toMatch(/unknown/i);
});

test('the path-based URL still works on loopback and the public host, and refuses another tenant host', async () => {
  expect((await list('/t/acme/mcp', '127.0.0.1:3000')).statusCode).toBe(200);
  expect((await list('/t/acme/mcp', 'gw.example.com')).statusCode).toBe(200);
  const foreign = await list('/t/acme/mcp', 'beta.mcp.example.com');
  expect(foreign.statusCode).toBe(403);
  expect(rpcError(foreign).message).toContain('Host');
});
