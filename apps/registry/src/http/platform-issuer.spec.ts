import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformIssuer } from './platform-issuer';

/**
 * CONSOLE_ISSUER_INTERNAL_URL: the public issuer origin does not resolve from the registry
 * (compose, some clusters), so its own calls take the back channel while browsers are still
 * sent to the public origin.
 */
describe('PlatformIssuer back channel', () => {
  const PUBLIC = 'http://auth.switchboard.invalid/platform';
  let server: Server;
  let origin: string;
  const seen: Array<{ method: string; path: string; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', path: req.url ?? '', body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/platform/.well-known/openid-configuration') {
          // Like oidc-provider: endpoints built from the Host the request came in on.
          const here = `http://${req.headers.host}/platform`;
          res.end(
            JSON.stringify({
              issuer: PUBLIC,
              authorization_endpoint: `${here}/authorize`,
              token_endpoint: `${here}/token`,
              jwks_uri: `${here}/jwks`,
            }),
          );
        } else if (req.url === '/platform/token') {
          res.end(JSON.stringify({ access_token: 'at-123', token_type: 'Bearer' }));
        } else {
          res.statusCode = 404;
          res.end('{}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fetches metadata and redeems codes on the internal origin, and sends browsers to the public one', async () => {
    const issuer = new PlatformIssuer({
      issuer: PUBLIC,
      clientId: 'switchboard-console',
      audience: () => 'http://console.test/v1',
      backChannelOrigin: origin,
    });
    const url = new URL(
      await issuer.authorizationUrl({ redirectUri: 'http://console.test/console/callback', state: 's', codeChallenge: 'c' }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('http://auth.switchboard.invalid/platform/authorize');
    expect(url.searchParams.get('resource')).toBe('http://console.test/v1');

    await expect(issuer.exchangeCode({ code: 'abc', verifier: 'v', redirectUri: 'http://console.test/console/callback' })).resolves.toBe(
      'at-123',
    );
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /platform/.well-known/openid-configuration', 'POST /platform/token']);
    expect(new URLSearchParams(seen[1]?.body).get('code')).toBe('abc');
    expect((await issuer.metadata()).jwks_uri).toBe(`${origin}/platform/jwks`);
  });

  it('without a back channel, uses the public issuer URL as published', async () => {
    const issuer = new PlatformIssuer({
      issuer: `${origin}/platform`,
      clientId: 'switchboard-console',
      audience: () => 'http://console.test/v1',
    });
    await expect(issuer.metadata()).rejects.toThrow(/names issuer http:\/\/auth\.switchboard\.invalid\/platform/);
  });
});
