import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';
import { guardCause, openidClient, UpstreamOidc, upstreamAllowHosts } from './upstream-oidc';

/** A hostile "authorization server" on loopback: discovery, a token endpoint that hangs, and a body without end. */
describe('UpstreamOidc outbound calls (net-guard, time and size bounds)', () => {
  let server: http.Server;
  let port: number;
  let streamed = 0;
  let streamClosed: Promise<void> = Promise.resolve();
  const hanging = new Set<http.ServerResponse>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const origin = `http://${req.headers.host ?? ''}`;
      if (req.url === '/.well-known/openid-configuration' || req.url === '/meta/.well-known/openid-configuration') {
        const meta = req.url.startsWith('/meta');
        const metadata = {
          issuer: meta ? `${origin}/meta` : origin,
          authorization_endpoint: `${origin}/authorize`,
          // Where a hostile tenant points its AS at: the cloud metadata service, or an endpoint that never answers.
          token_endpoint: meta ? 'https://169.254.169.254/token' : `${origin}/hang`,
          revocation_endpoint: meta ? 'https://10.0.0.7/revoke' : `${origin}/hang`,
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
      } else if (req.url === '/big/.well-known/openid-configuration') {
        // "2 GB" of JSON, streamed without a content-length: only the byte cap stops it.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        streamClosed = new Promise<void>((resolve) => res.on('close', resolve));
        const pump = () => {
          while (!res.destroyed && streamed < 2 * 1024 ** 3) {
            streamed += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        res.write('{"issuer":"');
        pump();
      } else if (req.url === '/slow/.well-known/openid-configuration') {
        // Headers at once, then a body that never ends (nor grows).
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"issuer":');
        hanging.add(res);
      } else {
        // /hang and anything else: headers never come.
        hanging.add(res);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a loopback IdP in production mode, naming the reason', async () => {
    const prod = new UpstreamOidc({ allowHosts: upstreamAllowHosts({ SWITCHBOARD_ENV: 'production' }) });
    const plain = await prod.config({ issuer: `http://127.0.0.1:${port}`, clientId: 'c' }).catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(NetGuardError);
    expect((plain as NetGuardError).message).toContain('plain http is not allowed for host 127.0.0.1');
    const tls = await prod.config({ issuer: `https://127.0.0.1:${port}`, clientId: 'c' }).catch((e: unknown) => e);
    expect(tls).toBeInstanceOf(NetGuardError);
    expect((tls as NetGuardError).code).toBe('NET_GUARD_BLOCKED_ADDRESS');
    expect((tls as NetGuardError).message).toContain('loopback');
    // Development keeps loopback; an explicit allow-list replaces both defaults.
    expect(upstreamAllowHosts({ SWITCHBOARD_ENV: 'development' })).toContain('127.0.0.1');
    expect(upstreamAllowHosts({ SWITCHBOARD_ENV: 'production', AUTH_ALLOW_HTTP_HOSTS: ['idp.test'] })).toEqual(['idp.test']);
  });

  it('refuses a host that passes the URL check but resolves to loopback when the socket connects (DNS rebinding)', async () => {
    // The pre-request check sees a public address; the connect-time lookup sees the real one.
    const rebinding = new UpstreamOidc({ allowHosts: [], resolve: async () => ['93.184.216.34'] });
    const err = await rebinding.config({ issuer: `https://localhost:${port}`, clientId: 'c' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetGuardError);
    expect((err as NetGuardError).code).toBe('NET_GUARD_BLOCKED_ADDRESS');
    expect((err as NetGuardError).message).toContain('localhost (resolves to 127.0.0.1)');
  });

  it('refuses token and revocation endpoints inside the cluster even when the issuer itself is allowed', async () => {
    const dev = new UpstreamOidc({ allowHosts: ['localhost'] });
    const cfg = await dev.config({ issuer: `http://localhost:${port}/meta`, clientId: 'c' });
    const err = await openidClient.refreshTokenGrant(cfg, 'rt').catch((e: unknown) => guardCause(e));
    expect(err).toBeInstanceOf(NetGuardError);
    expect((err as NetGuardError).message).toContain('host 169.254.169.254 is in a blocked address range');
    // Revocation goes through the same guarded fetch.
    const revoke = await openidClient.tokenRevocation(cfg, 'rt').catch((e: unknown) => guardCause(e));
    expect(revoke).toBeInstanceOf(NetGuardError);
    expect((revoke as NetGuardError).message).toContain('host 10.0.0.7 is in a blocked address range');
  });

  it('cuts a discovery document larger than the cap while it streams', async () => {
    const dev = new UpstreamOidc({ allowHosts: ['localhost'], maxBytes: 256 * 1024 });
    const err = await dev.config({ issuer: `http://localhost:${port}/big`, clientId: 'c' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    await streamClosed;
    // The connection was dropped near the cap, not after the 2 GB the server offered.
    expect(streamed).toBeLessThan(64 * 1024 * 1024);
  });

  it('bounds a discovery answer whose body never ends by time', async () => {
    const dev = new UpstreamOidc({ allowHosts: ['localhost'], timeoutS: 1 });
    const started = Date.now();
    const err = await dev.config({ issuer: `http://localhost:${port}/slow`, clientId: 'c' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('bounds a token endpoint that never answers by time', async () => {
    const dev = new UpstreamOidc({ allowHosts: ['localhost'], timeoutS: 1 });
    const cfg = await dev.config({ issuer: `http://localhost:${port}`, clientId: 'c' });
    const started = Date.now();
    const err = await openidClient.refreshTokenGrant(cfg, 'rt').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
