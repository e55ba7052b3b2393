import type { FastifyInstance } from 'fastify';
import { startAuth, type TestAuth } from './support/auth-harness';
import { approve, authorizeUrl, decodeJwt, pkcePair, register, TestBrowser, token } from '@switchboard/testing';
import { startGateway, type TestGateway } from './support/platform';

const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';

describe('client identification: CIMD, DCR limits, host-based tenants', () => {
  let auth: TestAuth;
  const docs = new Map<string, unknown>();
  const fetched: string[] = [];
  // Documents served as bodies that never end: one that drips a byte and stalls, one that never stops.
  const streams = new Map<string, () => ReadableStream<Uint8Array>>([
    ['https://client.test/oauth/drip.json', () => new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{')) })],
    ['https://client.test/oauth/endless.json', () => new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(64 * 1024).fill(0x20)) })],
  ]);
  const resolved: Record<string, string[]> = {
    'client.test': ['93.184.216.34'],
    'internal.test': ['10.0.0.5'],
    'rebind.test': ['93.184.216.34', '127.0.0.1'],
  };

  beforeAll(async () => {
    auth = await startAuth({
      env: { DCR_RATE_LIMIT_PER_MIN: '3' },
      tenants: [{ id: 'acme', auth: { scopes: ['mcp:tools'] } }],
      cimd: {
        lookup: async (host) => {
          const a = resolved[host];
          if (!a) throw new Error('ENOTFOUND');
          return a;
        },
        fetch: async (url) => {
          fetched.push(url);
          const stream = streams.get(url);
          if (stream) return new Response(stream(), { status: 200, headers: { 'content-type': 'application/json' } });
          const doc = docs.get(url);
          if (doc === undefined) return new Response('not found', { status: 404 });
          return new Response(JSON.stringify(doc), {
            status: 200,
            headers: { 'content-type': 'application/json', 'cache-control': 'max-age=60' },
          });
        },
      },
    });
  });
  afterAll(async () => auth?.close());

  describe('H. client ID metadata documents', () => {
    it('fetches the document and completes the flow; a port-less loopback entry matches any port (Claude Code shape)', async () => {
      const id = 'https://client.test/oauth/claude-code.json';
      docs.set(id, {
        client_id: id,
        client_name: 'Claude Code',
        redirect_uris: ['http://localhost/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      const redirectUri = 'http://localhost:54321/callback';
      const { verifier, challenge } = pkcePair();
      const back = await approve(
        new TestBrowser(),
        authorizeUrl(auth.issuer('acme'), { clientId: id, redirectUri, challenge }),
        redirectUri,
      );
      const t = await token(auth.issuer('acme'), {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: redirectUri,
        client_id: id,
        code_verifier: verifier,
      });
      expect(t.status).toBe(200);
      expect(decodeJwt(String(t.body.access_token)).payload.client_id).toBe(id);
      expect(fetched).toContain(id);
    });

    it('refuses a document whose client_id is not its URL', async () => {
      const id = 'https://client.test/oauth/mismatch.json';
      docs.set(id, {
        client_id: 'https://client.test/other.json',
        client_name: 'x',
        redirect_uris: [CLAUDE],
        token_endpoint_auth_method: 'none',
      });
      const res = await new TestBrowser().get(
        authorizeUrl(auth.issuer('acme'), { clientId: id, redirectUri: CLAUDE, challenge: pkcePair().challenge }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it.each([
      ['a host resolving to a private address', 'https://internal.test/doc.json'],
      ['a host with one loopback address (rebinding)', 'https://rebind.test/doc.json'],
      ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data.json'],
      ['loopback', 'https://127.0.0.1/doc.json'],
      ['an unresolvable host', 'https://nowhere.test/doc.json'],
    ])('refuses %s without fetching it', async (_n, id) => {
      docs.set(id, { client_id: id, client_name: 'x', redirect_uris: [CLAUDE], token_endpoint_auth_method: 'none' });
      const res = await new TestBrowser().get(
        authorizeUrl(auth.issuer('acme'), { clientId: id, redirectUri: CLAUDE, challenge: pkcePair().challenge }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(fetched).not.toContain(id);
    });

    it.each([
      ['a document whose body never ends', 'https://client.test/oauth/drip.json'],
      ['a document that never stops streaming', 'https://client.test/oauth/endless.json'],
    ])('refuses %s within the fetch bounds', async (_n, id) => {
      const res = await new TestBrowser().get(
        authorizeUrl(auth.issuer('acme'), { clientId: id, redirectUri: CLAUDE, challenge: pkcePair().challenge }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(fetched).toContain(id);
    });

    it('refuses a redirect URI the document does not list', async () => {
      const id = 'https://client.test/oauth/web.json';
      docs.set(id, { client_id: id, client_name: 'Web', redirect_uris: [CLAUDE], token_endpoint_auth_method: 'none' });
      const res = await new TestBrowser().get(
        authorizeUrl(auth.issuer('acme'), { clientId: id, redirectUri: 'https://claude.ai/evil', challenge: pkcePair().challenge }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });
  });

  describe('G. DCR abuse limits', () => {
    it('answers 429 with Retry-After past the per-source limit', async () => {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const r = await register(auth.issuer('acme'), { redirect_uris: [CLAUDE], token_endpoint_auth_method: 'none' });
        statuses.push(r.status);
        if (r.status === 429) retryAfter = r.headers.get('retry-after');
      }
      expect(statuses.slice(0, 3)).toEqual([201, 201, 201]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    });
  });
});

describe('host-based tenants (https://{tenant}.{domain}, issuer without a path)', () => {
  let auth: TestAuth;
  let gateway: TestGateway;
  const tenants = [{ id: 'acme', auth: { scopes: ['mcp:tools'] } }];

  beforeAll(async () => {
    auth = await startAuth({ env: { GATEWAY_DOMAIN: 'mcp.test' }, tenants });
    gateway = await startGateway(
      0,
      tenants.map((t) => ({ ...t, name: 'Acme', catalogs: [{ builtin: 'demo' }] })),
      { GATEWAY_DOMAIN: 'mcp.test' },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await auth?.close();
  });

  const injectAuth = (url: string) =>
    (auth.app.getHttpAdapter().getInstance() as FastifyInstance).inject({ url, headers: { host: 'acme.mcp.test' } });

  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
    'serves %s at the tenant origin root',
    async (path) => {
      const res = await injectAuth(path);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        issuer: 'https://acme.mcp.test',
        authorization_endpoint: 'https://acme.mcp.test/authorize',
        token_endpoint: 'https://acme.mcp.test/token',
      });
    },
  );

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])(
    'gateway serves PRM at %s with resource = https://acme.mcp.test/mcp',
    async (path) => {
      const res = await (gateway.app.getHttpAdapter().getInstance() as FastifyInstance).inject({
        url: path,
        headers: { host: 'acme.mcp.test' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(
        expect.objectContaining({ resource: 'https://acme.mcp.test/mcp', authorization_servers: ['https://acme.mcp.test'] }),
      );
    },
  );

  it('challenges with the host-based PRM URL', async () => {
    const res = await gateway.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: 'acme.mcp.test', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('resource_metadata="https://acme.mcp.test/.well-known/oauth-protected-resource/mcp"');
  });
});
