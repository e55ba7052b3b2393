import Fastify from 'fastify';
import { LEGACY, POST_HEADERS, bundle, kitTarget, rpc } from './testing/edge-kit';
import { registerMcpRoutes } from './register-mcp-routes';

describe('registerMcpRoutes', () => {
  const app = Fastify();
  const target = kitTarget('solo');
  registerMcpRoutes(app, ['/mcp'], {
    policy: { resolveTarget: () => target },
    bundles: [bundle],
    bodyLimit: 256,
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
  });
  afterAll(() => app.close());

  it('serves the endpoint on a Fastify host route, body and all', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY },
      payload: rpc('tools/call', { name: 'echo', arguments: { text: 'via fastify' } }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().result.content[0].text).toBe('via fastify');
  });

  it("bounds the body with the endpoint's limit and its JSON-RPC error, not Fastify's", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...POST_HEADERS, 'content-type': 'text/plain' },
      payload: 'x'.repeat(300),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.data).toEqual({ limit: 'bodyLimit', bytes: 256 });
  });

  it('answers GET and DELETE through the same steps', async () => {
    expect((await app.inject({ method: 'DELETE', url: '/mcp' })).statusCode).toBe(405);
    expect((await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'application/json' } })).statusCode).toBe(405);
  });
});
