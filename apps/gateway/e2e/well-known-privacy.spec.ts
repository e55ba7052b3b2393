/**
 * Issue 18 item 10: a protected tenant's server card and llms.txt say how to connect and sign in,
 * never which tools it has (tools/list needs a token); an open tenant's still list them.
 */
import { startGateway, type TestGateway } from './support/harness';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    tenants: [
      { id: 'vault', name: 'Vault', catalogs: [{ builtin: 'demo' }], auth: { scopes: ['mcp:tools'] } },
      { id: 'open', name: 'Open', catalogs: [{ builtin: 'demo' }] },
    ],
  });
});
afterAll(async () => gw?.close());

test("a protected tenant's /.well-known/mcp.json names no tool, prompt or resource and points at its PRM", async () => {
  const res = await gw.inject({ method: 'GET', url: '/t/vault/.well-known/mcp.json' });
  expect(res.statusCode).toBe(200);
  const card = res.json() as Record<string, unknown>;
  expect(Object.keys(card).sort()).toEqual(['$schema', 'authentication', 'name', 'protocolVersions', 'remotes', 'title']);
  expect(card.authentication).toEqual({
    required: true,
    protectedResourceMetadata: expect.stringMatching(/\/\.well-known\/oauth-protected-resource\/t\/vault\/mcp$/),
  });
  expect(res.body).not.toContain('echo');
});

test("a protected tenant's llms.txt says to sign in and lists nothing; nosniff is set", async () => {
  const res = await gw.inject({ method: 'GET', url: '/t/vault/llms.txt' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.body).toContain('This endpoint requires OAuth sign-in; its tools are listed to signed-in clients (tools/list).');
  expect(res.body).not.toMatch(/## Tools|echo/);
});

test("an open tenant's card and llms.txt still list its tools", async () => {
  const card = (await gw.inject({ method: 'GET', url: '/t/open/.well-known/mcp.json' })).json() as { tools: Array<{ name: string }> };
  expect(card.tools.map((t) => t.name)).toContain('echo');
  expect((await gw.inject({ method: 'GET', url: '/t/open/llms.txt' })).body).toContain('## Tools');
});
