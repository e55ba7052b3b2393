import { edgeKit } from './testing/edge-kit';

describe('EdgeCall', () => {
  it('reads the first value of a request header and the route it matched', async () => {
    const kit = edgeKit();
    let seen: unknown;
    await kit.step({ method: 'POST', url: '/t/acme/mcp', headers: { 'x-one': 'a', accept: 'text/plain' } }, (call) => {
      seen = {
        one: call.header('x-one'),
        accept: call.header('accept'),
        none: call.header('x-none'),
        method: call.method,
        route: call.routeOptions.url,
      };
    });
    expect(seen).toEqual({ one: 'a', accept: 'text/plain', none: undefined, method: 'POST', route: '/t/:tenant/mcp' });
  });

  it('sends one answer with the status and headers set, and ignores a second', async () => {
    const kit = edgeKit();
    const res = await kit.step({ method: 'POST', url: '/t/acme/mcp' }, (call) => {
      call.code(418).setHeader('x-a', '1').setHeaders({ 'x-b': '2' }).send('first');
      call.code(200).send('second');
    });
    expect(res.statusCode).toBe(418);
    expect(res.headers['x-a']).toBe('1');
    expect(res.headers['x-b']).toBe('2');
    expect(res.body).toBe('first');
  });

  it('sends nothing once a step took the response over', async () => {
    const kit = edgeKit();
    const res = await kit.step({ method: 'GET', url: '/t/acme/mcp' }, (call) => {
      call.hijack();
      call.send('ignored');
      call.res.writeHead(201).end('raw');
    });
    expect(res.statusCode).toBe(201);
    expect(res.body).toBe('raw');
  });

  it('asks the host for the client address once, when first read', async () => {
    let asked = 0;
    const kit = edgeKit({ clientIp: () => (asked++, '203.0.113.9') });
    let ips: string[] = [];
    await kit.step({ method: 'POST', url: '/t/acme/mcp' }, (call) => {
      expect(asked).toBe(0);
      ips = [call.ip, call.ip];
    });
    expect(ips).toEqual(['203.0.113.9', '203.0.113.9']);
    expect(asked).toBe(1);
  });

  it('measures the time since the request arrived', async () => {
    const kit = edgeKit();
    let elapsed = -1;
    await kit.step({ method: 'POST', url: '/t/acme/mcp' }, async (call) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      elapsed = call.elapsedTime;
    });
    expect(elapsed).toBeGreaterThanOrEqual(15);
  });
});
