import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch } from './guarded-fetch';
import { guardedLookup } from './guarded-lookup';
import { NetGuardError } from './net-guard-error';

describe('guardedFetch', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/redirect-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      } else if (req.url === '/redirect-local') {
        res.writeHead(307, { location: '/echo' }).end();
      } else {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null })),
        );
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fetchAllowed = guardedFetch({ allowHosts: ['localhost'] });

  it('sends method, headers and body to an allow-listed host and follows a safe redirect', async () => {
    const res = await fetchAllowed(`${base}/redirect-local`, { method: 'POST', headers: { authorization: 'Bearer up' }, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}', auth: 'Bearer up' });
  });

  it('refuses a redirect to the cloud metadata address', async () => {
    const err = await fetchAllowed(`${base}/redirect-metadata`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetGuardError);
    expect((err as NetGuardError).code).toBe('NET_GUARD_REDIRECT');
    expect((err as NetGuardError).message).toContain('redirect to http://169.254.169.254/latest/meta-data refused');
  });

  it('refuses a loopback URL when the host is not allow-listed', async () => {
    const err = await guardedFetch({ allowHosts: [] })(`${base}/echo`).catch((e: unknown) => e);
    expect((err as NetGuardError).code).toBe('NET_GUARD_SCHEME');
  });
});

describe('guardedLookup', () => {
  it('refuses at connect time when the name resolves to a blocked range', async () => {
    const lookup = guardedLookup({ allowHosts: [] });
    const err = await new Promise<unknown>((resolve) => lookup('localhost', { all: true }, (e) => resolve(e)));
    expect(err).toBeInstanceOf(NetGuardError);
    expect((err as NetGuardError).message).toContain('loopback');
  });
});
