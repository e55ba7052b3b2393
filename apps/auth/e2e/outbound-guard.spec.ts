import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startAuth, type TestAuth } from './support/auth-harness';

jest.setTimeout(60_000);

/**
 * Issue 41, finding 4: the auth service called a tenant's IdP with openid-client's own fetch,
 * plain http to loopback included, whatever the mode. In production a tenant whose IdP is on a
 * loopback address gets a clear refusal and the address is never contacted; the operator's
 * explicit allow-list (AUTH_ALLOW_HTTP_HOSTS) is the only way to reach it.
 */
describe('the auth service reaches no loopback IdP in production', () => {
  let idp: http.Server;
  let issuer: string;
  let hits = 0;
  const started: TestAuth[] = [];

  beforeAll(async () => {
    idp = http.createServer((req, res) => {
      hits++;
      const origin = `http://${req.headers.host ?? ''}`;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token` }));
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const a of started) await a.close();
    await new Promise<void>((resolve) => idp.close(() => resolve()));
  });

  const production = async (extra: Record<string, string>, logLines: string[]) => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    const auth = await startAuth({
      env: {
        SWITCHBOARD_ENV: 'production',
        CATALOG_SECRETS_KEY: randomBytes(32).toString('base64'),
        INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
        ...extra,
      },
      logger: pino({ level: 'info' }, sink),
      tenants: [{ id: 'initech', name: 'Initech', auth: { scopes: ['mcp:tools'], idp: { kind: 'oidc', issuer, clientId: 'sb-initech' } } }],
    });
    started.push(auth);
    return auth;
  };

  it('refuses the loopback IdP with a clear error and never contacts it', async () => {
    const logs: string[] = [];
    const auth = await production({}, logs);
    const res = await fetch(`${auth.issuer('initech')}/account/connections/login`, { redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(await res.text()).toContain('plain http is not allowed for host 127.0.0.1');
    expect(logs.join('')).toContain('plain http is not allowed for host 127.0.0.1');
    expect(hits).toBe(0);
  });

  it('reaches it when the operator allow-lists the host', async () => {
    const auth = await production({ AUTH_ALLOW_HTTP_HOSTS: '127.0.0.1' }, []);
    const res = await fetch(`${auth.issuer('initech')}/account/connections/login`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${issuer}/authorize\\?`));
    expect(hits).toBeGreaterThan(0);
  });
});
