import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { approve, authorizeUrl, decodeJwt, pkcePair, TestBrowser } from '@switchboard/testing';
import { freePort, sealTenantSecret } from './support/auth-harness';
import { startPlatform, type Platform } from './support/platform';
import { startTestIdp, type TestIdp } from './support/test-idp';
import { federationCookieName } from '../src/interaction/interaction.controller';

/** The SDK client's OAuth state, in memory; the "browser" step is done by the test. */
class MemoryOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK e2e client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('official SDK client OAuth against a protected tenant (enterprise IdP = second oidc-provider)', () => {
  let idp: TestIdp;
  let platform: Platform;
  const IDP_SECRET = 'idp-client-secret-for-tests';

  beforeAll(async () => {
    // The IdP must know our callback before auth starts; auth's port is not known yet, so
    // register the client after start by reading the issuer (IdP clients are static): start
    // the platform first with a placeholder, then the IdP with the real callback.
    const authPort = await freePort();
    idp = await startTestIdp([
      { client_id: 'switchboard', client_secret: IDP_SECRET, redirect_uris: [`http://127.0.0.1:${authPort}/t/acme/federation/callback`] },
    ]);
    platform = await startPlatform({
      port: authPort,
      tenants: [
        {
          id: 'acme',
          name: 'Acme',
          auth: {
            scopes: ['mcp:tools', 'mcp:tools:read'],
            defaultScopes: ['mcp:tools'],
            idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'switchboard', clientSecret: sealTenantSecret('acme', 'idp', IDP_SECRET) },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await platform?.close();
    await idp?.close();
  });

  it('runs 401 → PRM → AS metadata → DCR → authorize (IdP login, consent) → token → tools/list and tools/call', async () => {
    const url = new URL(platform.gateway.mcpUrl('acme'));
    const provider = new MemoryOAuthProvider('http://127.0.0.1:9/callback');
    const first = new Client({ name: 'sdk-e2e', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(provider.info?.client_id).toEqual(expect.any(String));
    expect(provider.authUrl?.searchParams.get('resource')).toBe(url.href);

    const back = await approve(new TestBrowser(), provider.authUrl!.href, provider.redirectUrl);
    expect(back.searchParams.get('iss')).toBe(platform.auth.issuer('acme'));
    expect(idp.logins).toEqual(['alice']);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(back.searchParams.get('code')!);
    const claims = decodeJwt(provider.saved!.access_token).payload;
    expect(claims).toMatchObject({ sub: expect.stringMatching(/^acme\|oidc-[0-9a-f]{16}\|alice$/), aud: url.href, tid: 'acme' });

    const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { text: 'through oauth' } });
    expect(JSON.stringify(result.content)).toContain('through oauth');
    await client.close();
  });
});

describe('J. federated login is bound to the browser that started it', () => {
  let idp: TestIdp;
  let platform: Platform;

  beforeAll(async () => {
    const authPort = await freePort();
    idp = await startTestIdp([
      {
        client_id: 'sb-beta',
        client_secret: 'beta-idp-secret',
        redirect_uris: [`http://127.0.0.1:${authPort}/t/beta/federation/callback`],
      },
    ]);
    platform = await startPlatform({
      port: authPort,
      tenants: [
        {
          id: 'beta',
          auth: {
            scopes: ['mcp:tools'],
            idp: {
              kind: 'oidc',
              issuer: idp.issuer,
              clientId: 'sb-beta',
              clientSecret: sealTenantSecret('beta', 'idp', 'beta-idp-secret'),
            },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await platform?.close();
    await idp?.close();
  });

  it('refuses the IdP callback in a browser that did not start the login (login CSRF), and accepts it in the one that did', async () => {
    const issuer = platform.auth.issuer('beta');
    const reg = await fetch(`${issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], token_endpoint_auth_method: 'none' }),
    });
    const clientId = String(((await reg.json()) as Record<string, unknown>).client_id);
    const attacker = new TestBrowser();
    idp.user = 'mallory';
    const { url: callback } = await attacker.follow(
      authorizeUrl(issuer, { clientId, redirectUri: 'https://claude.ai/api/mcp/auth_callback', challenge: pkcePair().challenge }),
      (u) => u.pathname.endsWith('/federation/callback'),
    );
    expect(new URL(callback).searchParams.get('code')).toEqual(expect.any(String));
    const victim = new TestBrowser();
    const refused = await victim.get(callback);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(await refused.text()).toContain('not started in this browser');
    const ok = await attacker.get(callback);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toContain('/t/beta/authorize/');
    // Single use: replaying the callback fails even in the right browser.
    const replay = await attacker.get(callback);
    expect(replay.status).toBe(400);
  });
  /** auth_sign_ins_total{idp="oidc",outcome} as /metrics shows it now (0 when absent). */
  const signIns = async (outcome: string): Promise<number> => {
    const text = await (await fetch(`${platform.auth.baseUrl}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('auth_sign_ins_total{') && l.includes('idp="oidc"') && l.includes(`outcome="${outcome}"`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };

  it('counts every federated sign-in by outcome: ok, not started in this browser, refused by the IdP check, unknown state', async () => {
    const outcomes = ['ok', 'not_started_here', 'idp_refused', 'unknown_state'] as const;
    const before = Object.fromEntries(await Promise.all(outcomes.map(async (o) => [o, await signIns(o)] as const)));
    const issuer = platform.auth.issuer('beta');
    const reg = await fetch(`${issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], token_endpoint_auth_method: 'none' }),
    });
    const clientId = String(((await reg.json()) as Record<string, unknown>).client_id);
    const toCallback = async (browser: TestBrowser) =>
      new URL(
        (
          await browser.follow(
            authorizeUrl(issuer, { clientId, redirectUri: 'https://claude.ai/api/mcp/auth_callback', challenge: pkcePair().challenge }),
            (u) => u.pathname.endsWith('/federation/callback'),
          )
        ).url,
      );
    idp.user = 'carol';
    const first = new TestBrowser();
    const callback = await toCallback(first);
    expect((await new TestBrowser().get(callback.href)).status).toBe(400); // another browser
    const forged = new URL(callback);
    forged.searchParams.set('code', 'not-the-code-the-idp-issued');
    expect((await first.get(forged.href)).status).toBe(400); // the IdP's token endpoint refuses it
    // The refusal cleared the browser's cookie; present it anyway: the state was used up by the forged attempt.
    const replay = await fetch(callback, {
      redirect: 'manual',
      headers: { cookie: `${federationCookieName('beta')}=${callback.searchParams.get('state')}` },
    });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('unknown, expired or already used');
    const second = new TestBrowser();
    expect((await second.get((await toCallback(second)).href)).status).toBe(303);
    const after = Object.fromEntries(await Promise.all(outcomes.map(async (o) => [o, await signIns(o)] as const)));
    expect(Object.fromEntries(outcomes.map((o) => [o, after[o]! - before[o]!]))).toEqual({
      ok: 1,
      not_started_here: 1,
      idp_refused: 1,
      unknown_state: 1,
    });
  });
});
