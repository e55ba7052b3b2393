import { LEGACY, POST_HEADERS, edgeKit, kitTarget, rpc } from './testing/edge-kit';
import type { EdgeCall } from './edge-call';

const HEADERS = { ...POST_HEADERS, 'mcp-protocol-version': LEGACY };

describe('McpEndpoint', () => {
  it('serves POST /t/:tenant/mcp through every step to the answer', async () => {
    const kit = edgeKit();
    const res = await kit.inject({
      method: 'POST',
      url: '/t/acme/mcp?x=1',
      headers: HEADERS,
      payload: rpc('tools/call', { name: 'echo', arguments: { text: 'end to end' } }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().result.content[0].text).toBe('end to end');
  });

  it('declines what is not its path or method, leaving the request to the host', async () => {
    const kit = edgeKit();
    for (const [method, url] of [
      ['POST', '/healthz'],
      ['POST', '/t/acme/mcp/extra'],
      ['POST', '/t//mcp'],
      ['POST', '/mcp'],
      ['PUT', '/t/acme/mcp'],
      ['OPTIONS', '/t/acme/mcp'],
    ] as const) {
      const res = await kit.inject({ method, url });
      expect([method, url, res.statusCode]).toEqual([method, url, 599]);
    }
  });

  it('answers the host form at /mcp only when asked to, the tenant by Host', async () => {
    const kit = edgeKit({ hostForm: true, targets: [kitTarget('beta')] });
    const res = await kit.inject({ method: 'POST', url: '/mcp', headers: HEADERS, payload: rpc('ping') });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('percent-decodes the tenant segment as a router would', async () => {
    const kit = edgeKit({ targets: [kitTarget('a b')] });
    const ok = await kit.inject({ method: 'POST', url: '/t/a%20b/mcp', headers: HEADERS, payload: rpc('ping') });
    expect(ok.statusCode).toBe(200);
    const bad = await kit.inject({ method: 'POST', url: '/t/%E0%A4%A/mcp', headers: HEADERS, payload: rpc('ping') });
    expect(bad.statusCode).toBe(404);
  });

  it('routes GET, HEAD and DELETE to their steps', async () => {
    const kit = edgeKit();
    expect((await kit.inject({ method: 'GET', url: '/t/acme/mcp', headers: { accept: 'application/json' } })).statusCode).toBe(405);
    expect((await kit.inject({ method: 'HEAD', url: '/t/acme/mcp', headers: { accept: 'application/json' } })).statusCode).toBe(405);
    expect((await kit.inject({ method: 'DELETE', url: '/t/acme/mcp' })).statusCode).toBe(405);
  });

  it('answers a body over the limit 413 and a throwing policy 500, both as JSON-RPC errors', async () => {
    const small = edgeKit({ bodyLimit: 16 });
    const big = await small.inject({ method: 'POST', url: '/t/acme/mcp', headers: HEADERS, payload: rpc('tools/list') });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.data).toEqual({ limit: 'bodyLimit', bytes: 16 });
    const throwing = edgeKit({
      policy: {
        resolveTarget: () => {
          throw new Error('directory down');
        },
      },
    });
    const crashed = await throwing.inject({ method: 'POST', url: '/t/acme/mcp', headers: HEADERS, payload: rpc('ping') });
    expect(crashed.statusCode).toBe(500);
    expect(crashed.json().error).toEqual({ code: -32603, message: 'Internal error' });
  });

  it('tells the host each finished answer, with the call that made it', async () => {
    const finished: Array<[string, number, string]> = [];
    const kit = edgeKit({ onResponse: (call: EdgeCall) => finished.push([call.method, call.statusCode, call.route]) });
    await kit.inject({ method: 'POST', url: '/t/nobody/mcp', headers: HEADERS, payload: rpc('ping') });
    await kit.inject({ method: 'DELETE', url: '/t/acme/mcp' });
    expect(finished).toEqual([
      ['POST', 404, '/t/:tenant/mcp'],
      ['DELETE', 405, '/t/:tenant/mcp'],
    ]);
  });
});
