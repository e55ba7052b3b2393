import type { FastifyInstance } from 'fastify';
import { loadAuthConfig } from '../src/config';
import { DATABASE_URL, INTERNAL_TOKEN, startAuth, type TestAuth } from './support/auth-harness';
import { decodeJwt, obtainTokens, TestBrowser } from '@switchboard/testing';
import { startRegistryStandIn, type StandInRegistry } from './support/registry-stand-in';

import {
  CALLBACK,
  CALLBACK_2,
  CONSOLE,
  AUDIENCE,
  ALICE_PASSWORD,
  consoleEnv,
  openLogin,
  submit,
  type LoginPage,
} from './support/console-sign-in';

describe('platform issuer: failed sign-ins are rate-limited per IP', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;

  beforeAll(async () => {
    registry = await startRegistryStandIn(INTERNAL_TOKEN);
    registry.accounts.set('acme|alice', { password: ALICE_PASSWORD, name: 'Alice' });
    auth = await startAuth({ tenants: [], env: consoleEnv(registry, { CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: '2' }) });
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });

  it('answers 429 with Retry-After after the limit, without asking the registry', async () => {
    const browser = new TestBrowser();
    let page: LoginPage = await openLogin(browser, `${auth.baseUrl}/platform`);
    for (let i = 0; i < 2; i++) {
      page = await submit(browser, page, { workspace: 'acme', username: 'alice', password: `wrong-${i}` });
      expect(page.res.status).toBe(401);
    }
    const limited = await submit(browser, page, { workspace: 'acme', username: 'alice', password: ALICE_PASSWORD });
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.html).toContain('role="alert">Too many failed sign-in attempts');
    // Password checks only (auth also reads tenant documents from the registry's internal API).
    expect(registry.calls.filter((c) => c.path === '/internal/console/verify-login')).toHaveLength(2);
  });
});

describe('platform issuer: off unless fully configured', () => {
  let auth: TestAuth;

  beforeAll(async () => {
    // Two of the three console variables: still off.
    auth = await startAuth({
      tenants: [{ id: 'acme', auth: { scopes: ['mcp:tools'] } }],
      env: { CONSOLE_AUDIENCE: AUDIENCE, CONSOLE_REDIRECT_URI: CALLBACK },
    });
  });
  afterAll(async () => auth?.close());

  it.each([
    ['GET', '/.well-known/oauth-authorization-server/platform'],
    ['GET', '/.well-known/openid-configuration/platform'],
    ['GET', '/platform/.well-known/openid-configuration'],
    ['GET', `/platform/authorize?client_id=${CONSOLE}&response_type=code`],
    ['POST', '/platform/token'],
    ['GET', '/platform/jwks'],
    ['POST', '/platform/revoke'],
    ['GET', '/platform/interaction/abc'],
    ['POST', '/platform/interaction/abc/login'],
  ])('%s %s answers 404', async (method, path) => {
    const res = await fetch(`${auth.baseUrl}${path}`, { method, redirect: 'manual' });
    expect(res.status).toBe(404);
  });

  it('leaves tenant issuers as they are', async () => {
    const meta = await fetch(`${auth.baseUrl}/.well-known/oauth-authorization-server/t/acme`);
    expect(meta.status).toBe(200);
    const t = await obtainTokens(auth.issuer('acme'));
    expect(t.status).toBe(200);
    expect(decodeJwt(String(t.body.access_token)).payload).toMatchObject({
      iss: auth.issuer('acme'),
      aud: auth.mcpUrl('acme'),
      tid: 'acme',
    });
  });
});

describe('platform issuer configuration', () => {
  const base = {
    DATABASE_URL,
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN,
    REGISTRY_INTERNAL_URL: 'http://127.0.0.1:3100',
    CONSOLE_AUDIENCE: AUDIENCE,
  };

  it('is on with all four variables; redirect URIs are a comma-separated list', async () => {
    const c = loadAuthConfig({
      ...base,
      CONSOLE_REDIRECT_URI: `${CALLBACK} , ${CALLBACK_2}`,
      REGISTRY_INTERNAL_URL: 'http://127.0.0.1:3100/',
    });
    expect(c.platform).toEqual({
      redirectUris: [CALLBACK, CALLBACK_2],
      audience: AUDIENCE,
      registryUrl: 'http://127.0.0.1:3100',
      internalToken: INTERNAL_TOKEN,
    });
  });

  it('is off when one is missing or empty', async () => {
    expect(loadAuthConfig({ ...base, CONSOLE_REDIRECT_URI: '' }).platform).toBeUndefined();
    expect(loadAuthConfig({ ...base, CONSOLE_REDIRECT_URI: CALLBACK, INTERNAL_TOKEN: undefined }).platform).toBeUndefined();
  });

  it.each([
    ['CONSOLE_REDIRECT_URI', 'not a url'],
    ['CONSOLE_REDIRECT_URI', `${CALLBACK}#frag`],
    ['CONSOLE_REDIRECT_URI', 'javascript:alert(1)'],
    ['CONSOLE_AUDIENCE', 'ftp://x.example/v1'],
    ['REGISTRY_INTERNAL_URL', 'registry:3100'],
  ])('names %s when it is invalid (%s)', async (key, value) => {
    expect(() => loadAuthConfig({ ...base, CONSOLE_REDIRECT_URI: CALLBACK, [key]: value })).toThrow(key);
  });
});

describe('platform issuer beside host-based tenants', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;
  const inject = (url: string, host: string) =>
    (auth.app.getHttpAdapter().getInstance() as FastifyInstance).inject({ url, headers: { host } });

  beforeAll(async () => {
    registry = await startRegistryStandIn(INTERNAL_TOKEN);
    auth = await startAuth({
      tenants: [{ id: 'acme', auth: { scopes: ['mcp:tools'] } }],
      env: consoleEnv(registry, { GATEWAY_DOMAIN: 'mcp.test' }),
    });
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });

  it('stays path-based on the auth origin', async () => {
    const res = await fetch(`${auth.baseUrl}/.well-known/oauth-authorization-server/platform`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).issuer).toBe(`${auth.baseUrl}/platform`);
  });

  it('is not served on a tenant origin', async () => {
    const platform = await inject('/platform/.well-known/openid-configuration', 'acme.mcp.test');
    expect(platform.statusCode).toBe(404);
    const tenant = await inject('/.well-known/oauth-authorization-server', 'acme.mcp.test');
    expect(tenant.statusCode).toBe(200);
    expect((tenant.json() as Record<string, unknown>).issuer).toBe('https://acme.mcp.test');
  });
});
