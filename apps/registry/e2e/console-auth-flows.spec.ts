import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { expectFieldError, expectIntact, freePort, openConsoleBrowser, openTool, type ConsoleBrowser } from './support/console-browser';
import {
  READ_ONLY_HINTS,
  REDIS_URL,
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  spawnApp,
  startRegistry,
  startUpstream,
  testEnv,
  until,
  type Proc,
  type TestUpstream,
} from './support/harness';

jest.setTimeout(180_000);

/**
 * Issue 11 console flows in Chromium on the real registry + auth service: per-tool scopes on the
 * Tools page, connectors per server on the Auth page (secret write-only), and "Test sign-in",
 * which runs a real authorization-code + PKCE sign-in at the tenant's IdP (a second
 * oidc-provider) and shows the ID-token claims it got, or the IdP's error.
 */
describe('console auth flows in Chromium (tool scopes, connectors, test sign-in)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let auth: Proc;
  let authUrl: string;
  let upstream: TestUpstream;
  let idp: TestIdp;
  let rogue: Server;
  let rogueUrl: string;
  let key: string;
  let viewerKey: string;
  let b: ConsoleBrowser;
  let p: Page;
  const goodSecret = `idp-secret-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    upstream = await startUpstream('crm', [
      { name: 'find_contact', annotations: READ_ONLY_HINTS },
      { name: 'delete_contact', annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false } },
    ]);
    const authPort = await freePort();
    authUrl = `http://127.0.0.1:${authPort}`;
    registry = await startRegistry(env, db.url, {
      REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
      AUTH_PUBLIC_URL: authUrl,
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${await freePort()}`,
    });
    auth = await spawnApp(
      'auth',
      'apps/auth/dist/main.js',
      {
        AUTH_PORT: String(authPort),
        AUTH_PUBLIC_URL: authUrl,
        DATABASE_URL: db.url,
        AUTH_DB_SCHEMA: `auth_t_${randomBytes(5).toString('hex')}`,
        SECRETS_KEY: randomBytes(32).toString('base64'),
        CATALOG_SECRETS_KEY: env.secretsKey,
        GATEWAY_PUBLIC_URL: 'http://127.0.0.1:9',
        INTERNAL_TOKEN: env.internalToken,
        REDIS_URL,
        REDIS_NAMESPACE: env.namespace,
        REGISTRY_INTERNAL_URL: registry.url,
        TENANTS_FILE: '/nonexistent/tenants.yaml',
        LOG_LEVEL: 'warn',
      },
      /auth listening on (http:\/\/\S+)/,
    );
    const callback = `${authUrl}/t/acme/federation/callback`;
    idp = await startTestIdp([
      { client_id: 'sb-acme', client_secret: goodSecret, redirect_uris: [callback] },
      { client_id: 'crm-connector', client_secret: 'connector-secret', redirect_uris: [`${authUrl}/t/acme/connectors/callback`] },
    ]);
    // An "IdP" whose discovery document sends the token request to the metadata address.
    rogue = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          issuer: rogueUrl,
          authorization_endpoint: `${rogueUrl}/auth`,
          token_endpoint: 'http://169.254.169.254/latest/meta-data/token',
          jwks_uri: `${rogueUrl}/jwks`,
        }),
      );
    });
    await new Promise<void>((r) => rogue.listen(0, '127.0.0.1', () => r()));
    rogueUrl = `http://127.0.0.1:${(rogue.address() as { port: number }).port}`;

    key = await createTenant(registry.url, env.operatorKey, 'acme');
    viewerKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'viewer', role: 'viewer' })).body.apiKey);
    expect((await registerAndDiscover(registry.url, key, { id: 'crm', name: 'CRM', url: upstream.url })).health).toBe('ok');
    expect(
      (
        await api(registry.url, key, 'POST', '/v1/publications', {
          serverId: 'crm',
          items: [{ kind: 'tool', name: 'find_contact', exposedName: 'crm_find' }],
        })
      ).status,
    ).toBe(200);
  });

  afterAll(async () => {
    await b?.close();
    await Promise.all([auth?.stop(), registry?.stop()]);
    await Promise.all([upstream?.close(), idp?.close(), new Promise((r) => rogue?.close(r))]);
    await cleanRedis(env);
    await db?.drop();
  });

  const signIn = async (apiKey: string, page: 'Auth' | 'Tools') => {
    await p.goto(`${registry.url}/console/`);
    const signInForm = p.getByLabel('Tenant API key');
    const signOut = p.getByRole('button', { name: 'Sign out', exact: true });
    await signInForm.or(signOut).first().waitFor();
    if (await signOut.isVisible()) {
      await signOut.click();
      await signInForm.waitFor();
    }
    await signInForm.fill(apiKey);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: page, exact: true }).click();
    await p.getByRole('heading', { name: page, exact: true, level: 1 }).waitFor();
  };
  const tenantAuth = async () => (await api(registry.url, key, 'GET', '/v1/tenant/auth')).body;

  it('sets the scopes a published tool needs on the Tools page (keyed by its exposed name); a scope no tenant scope grants is refused beside the field', async () => {
    await signIn(key, 'Tools');
    await openTool(p, 'crm', 'delete_contact');
    expect(await p.getByTestId('tool-crm-delete_contact-scopes').textContent()).toContain('publish the tool first');
    await openTool(p, 'crm', 'find_contact');
    const field = p.getByLabel('Required scopes of crm_find');
    await field.waitFor();
    await field.fill('billing:write');
    await p.getByTestId('tool-crm-find_contact-scopes').getByRole('button', { name: 'Save scopes' }).click();
    await expectFieldError(
      p,
      'tool-crm-find_contact-scopes',
      /needs "billing:write", which none of the tenant's scopes \(mcp:tools\) grants/,
    );
    expect((await tenantAuth()).toolScopes ?? {}).toEqual({});
    await field.fill('mcp:tools:admin');
    await p.getByTestId('tool-crm-find_contact-scopes').getByRole('button', { name: 'Save scopes' }).click();
    await p.getByTestId('tool-crm-find_contact-scopes').getByText('Scopes saved.').waitFor();
    expect((await tenantAuth()).toolScopes).toEqual({ crm_find: ['mcp:tools:admin'] });
    await expectIntact(b);
    await b.shot('tools-scopes');
  });

  it('shows a viewer the tool scopes read-only', async () => {
    await signIn(viewerKey, 'Tools');
    await openTool(p, 'crm', 'find_contact');
    const box = p.getByTestId('tool-crm-find_contact-scopes');
    await box.getByText('mcp:tools:admin').waitFor();
    await box.getByText("changing a tool's scopes needs the admin role", { exact: false }).waitFor();
    expect(await p.getByRole('button', { name: 'Save scopes' }).count()).toBe(0);
    expect(await p.getByLabel('Required scopes of crm_find').count()).toBe(0);
    await expectIntact(b);
  });

  it('sets a connector per server on the Auth page: the issuer is checked, the secret is write-only, and it can be removed', async () => {
    await signIn(key, 'Auth');
    await p.getByTestId('auth-tool-scopes').getByText('crm_find → mcp:tools:admin', { exact: false }).waitFor();
    await p.getByLabel('Server', { exact: true }).selectOption('crm');
    await p.getByLabel('Connector issuer URL').fill('http://169.254.169.254');
    await p.getByLabel('Connector client id').fill('crm-connector');
    await p.getByRole('button', { name: 'Save connector' }).click();
    await expectFieldError(p, 'connector-issuer', /169\.254\.169\.254|not allowed|refused/i);
    await p.getByLabel('Connector issuer URL').fill(idp.issuer);
    await p.getByLabel('Connector client secret').fill('connector-secret');
    await p.getByLabel('Connector scopes').fill('openid email');
    await p.getByRole('button', { name: 'Save connector' }).click();
    await p.getByTestId('connector-notice').getByText('Connector of crm saved.').waitFor();
    const row = p.getByTestId('connectors-table').locator('tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.first().textContent()).toContain('stored (never shown)');
    expect(await p.getByLabel('Connector client secret').inputValue()).toBe('');
    await p.getByText('A secret is stored (never shown). Leave empty to keep it.').waitFor();
    expect(await p.content()).not.toContain('connector-secret');
    expect((await tenantAuth()).connectors).toEqual({
      crm: { issuer: idp.issuer, clientId: 'crm-connector', scopes: ['openid', 'email'], clientSecretSet: true },
    });
    // Saving again without a secret keeps the stored one.
    await p.getByLabel('Connector scopes').fill('openid');
    await p.getByRole('button', { name: 'Save connector' }).click();
    await p.getByTestId('connector-notice').getByText('Connector of crm saved.').waitFor();
    expect((await tenantAuth()).connectors).toMatchObject({ crm: { scopes: ['openid'], clientSecretSet: true } });
    // Token exchange needs an issuer that offers it: refused beside the Token source field, nothing stored.
    await p.getByLabel('Token source').selectOption('token_exchange');
    await p.getByLabel('Upstream resource (optional)').fill('https://crm.example/mcp');
    await p.getByRole('button', { name: 'Save connector' }).click();
    await expectFieldError(p, 'connector-grant-kind', /does not support the urn:ietf:params:oauth:grant-type:token-exchange grant/);
    expect((await tenantAuth()).connectors).toMatchObject({ crm: expect.not.objectContaining({ grant: expect.anything() }) });
    await p.getByLabel('Token source').selectOption('');
    await expectIntact(b);
    await b.shot('auth-connectors');
    await p.getByRole('button', { name: 'Remove connector' }).click();
    await p.getByTestId('connector-notice').getByText('Connector of crm removed.').waitFor();
    expect((await tenantAuth()).connectors).toEqual({});
  });

  it('refuses to start a test sign-in without an OIDC IdP, for a viewer, and when the discovery document points at a blocked address', async () => {
    const none = await api(registry.url, key, 'POST', '/v1/tenant/auth/test-sign-in');
    expect([none.status, none.body.error?.field]).toEqual([409, 'idp']);
    expect(
      (await api(registry.url, key, 'PATCH', '/v1/tenant/auth', { idp: { kind: 'oidc', issuer: rogueUrl, clientId: 'x' } })).status,
    ).toBe(200);
    const refused = await api(registry.url, key, 'POST', '/v1/tenant/auth/test-sign-in');
    expect([refused.status, refused.body.error?.code, refused.body.error?.field]).toEqual([400, 'URL_REFUSED', 'idp.issuer']);
    expect(refused.body.error?.message).toMatch(/token_endpoint/);
    const viewer = await api(registry.url, viewerKey, 'POST', '/v1/tenant/auth/test-sign-in');
    expect(viewer.status).toBe(403);
    const forged = await api(registry.url, key, 'POST', '/v1/tenant/auth/test-sign-in/result', {
      result: `${'a'.repeat(22)}.v2.abc.${'b'.repeat(40)}`,
    });
    expect([forged.status, forged.body.error?.field]).toEqual([400, 'body.result']);
    // Another (unpublished) workspace cannot test: its authorization server is not live.
    const betaKey = await createTenant(registry.url, env.operatorKey, 'beta');
    expect(
      (await api(registry.url, betaKey, 'PATCH', '/v1/tenant/auth', { idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'sb-beta' } }))
        .status,
    ).toBe(200);
    const beta = await api(registry.url, betaKey, 'POST', '/v1/tenant/auth/test-sign-in');
    expect([beta.status, beta.body.error?.message]).toEqual([409, expect.stringMatching(/publish the workspace first/)]);
  });

  /** Clicks "Test sign-in" until the authorization server runs the saved IdP (its copy of the settings follows the save). */
  const runTest = async (expected: 'idp-test-ok' | 'idp-test-error') => {
    await until(
      `test sign-in showing ${expected}`,
      async () => {
        await signIn(key, 'Auth');
        await p.getByRole('button', { name: 'Test sign-in' }).click();
        const outcome = p.getByTestId('idp-test-ok').or(p.getByTestId('idp-test-error'));
        await outcome.first().waitFor({ timeout: 30_000 });
        // Until the authorization server has the saved settings, it tests the previous ones.
        return (await p.getByTestId(expected).count()) > 0 ? true : undefined;
      },
      60_000,
      200,
    );
    await p.getByTestId(expected).waitFor({ timeout: 1_000 });
    expect(new URL(p.url()).hash).toBe('');
    expect(new URL(p.url()).pathname).toBe('/console/auth');
  };

  it('shows the IdP error of a test sign-in clearly (a client secret the IdP does not accept)', async () => {
    expect(
      (
        await api(registry.url, key, 'PATCH', '/v1/tenant/auth', {
          idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'sb-acme', clientSecret: 'not-the-secret' },
        })
      ).status,
    ).toBe(200);
    await runTest('idp-test-error');
    const box = p.getByTestId('idp-test-error');
    expect(await box.textContent()).toMatch(/The identity provider refused the sign-in: invalid_client/);
    expect(await box.textContent()).toContain(idp.issuer);
    await expectIntact(b);
    await b.shot('auth-test-sign-in-error');
  });

  it('runs a real authorization against the IdP and shows the ID-token claims it got, with the corrected secret of the same client; audited', async () => {
    const before = idp.logins.length;
    idp.user = 'tess';
    expect(
      (
        await api(registry.url, key, 'PATCH', '/v1/tenant/auth', {
          idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'sb-acme', clientSecret: goodSecret },
        })
      ).status,
    ).toBe(200);
    await runTest('idp-test-ok');
    expect(idp.logins.length).toBeGreaterThan(before);
    const claims = Object.fromEntries(
      await Promise.all(
        (await p.getByTestId('idp-test-claims').locator('tbody tr').all()).map(
          async (r) => [await r.locator('td').nth(0).textContent(), await r.locator('td').nth(1).textContent()] as const,
        ),
      ),
    );
    expect(claims).toMatchObject({ sub: 'tess', iss: idp.issuer, aud: 'sb-acme' });
    expect(claims.nonce).toBeTruthy();
    await expectIntact(b);
    await b.shot('auth-test-sign-in');
    const audit = await api(registry.url, key, 'GET', '/v1/audit');
    const actions = JSON.stringify(audit.body);
    expect(actions).toContain('auth.test_sign_in.start');
    expect(actions).toMatch(/auth\.test_sign_in\.result[^}]*"ok":true/);
  });
});
