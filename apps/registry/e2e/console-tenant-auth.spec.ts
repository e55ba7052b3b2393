import type { Page } from 'playwright-core';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { expectFieldError, expectIntact, focusedId, freePort, openConsoleBrowser, type ConsoleBrowser } from './support/console-browser';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './support/harness';

jest.setTimeout(120_000);

/** The console's Auth page in Chromium: the tenant turns OAuth on with its own IdP, refusals sit beside their fields, the secret is never shown. */
describe('console Auth page in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let idp: TestIdp;
  let key: string;
  let viewerKey: string;
  let b: ConsoleBrowser;
  let p: Page;

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    idp = await startTestIdp([{ client_id: 'sb-acme', client_secret: 'idp-secret', redirect_uris: ['http://127.0.0.1:9/t/acme/federation/callback'] }]);
    registry = await startRegistry(env, db.url, { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${await freePort()}`, REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1' });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    viewerKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'viewer', role: 'viewer' })).body.apiKey);
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await idp?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const signIn = async (apiKey: string) => {
    await p.context().clearCookies();
    await p.goto(`${registry.url}/console/`);
    await p.evaluate(() => sessionStorage.clear());
    await p.reload();
    await p.getByLabel('Tenant API key').fill(apiKey);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Auth', exact: true }).click();
    await p.getByRole('heading', { name: 'Auth', exact: true, level: 1 }).waitFor();
  };
  const save = () => p.getByRole('button', { name: 'Save auth settings', exact: true }).click();

  it('turns protection on with an OIDC provider: a bad issuer is refused beside its field, the good one is saved and its secret never shown', async () => {
    await signIn(key);
    expect(await p.getByLabel('Require OAuth sign-in for the MCP endpoint').isChecked()).toBe(false);
    await p.getByLabel('Require OAuth sign-in for the MCP endpoint').check();
    await p.getByLabel('Users sign in with').selectOption('oidc');
    await save();
    await expectFieldError(p, 'auth-idp-issuer', /Enter the issuer URL/);
    expect(await focusedId(p)).toBe('auth-idp-issuer');
    await p.getByLabel('Issuer URL').fill('http://169.254.169.254');
    await p.getByLabel('Client id').fill('sb-acme');
    await save();
    await expectFieldError(p, 'auth-idp-issuer', /169\.254\.169\.254|not allowed|refused/i);
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body.configured).toBe(false);
    await p.getByLabel('Issuer URL').fill(idp.issuer);
    await p.getByLabel('Client secret').fill('idp-secret');
    await save();
    await p.getByTestId('auth-notice').getByText('Saved; applies from the first publish.').waitFor();
    expect(await p.getByLabel('Client secret').inputValue()).toBe('');
    await p.getByText('A secret is stored (never shown). Leave empty to keep it.').waitFor();
    expect(await p.content()).not.toContain('idp-secret');
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body).toMatchObject({ protected: true, idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'sb-acme', clientSecretSet: true } });
    await expectIntact(b);
    await b.shot('auth-page');
  });

  it('puts a default scope that is not a scope beside the default-scopes field', async () => {
    await signIn(key);
    await p.getByLabel('Default scopes (optional)').fill('mcp:admin');
    await save();
    await expectFieldError(p, 'auth-default-scopes', /not one of the tenant's scopes/);
    await expectIntact(b);
  });

  it("shows a viewer's forced save as a 403 naming the role needed, and changes nothing", async () => {
    await signIn(viewerKey);
    await p.getByLabel('Require OAuth sign-in for the MCP endpoint').uncheck();
    await save();
    await p.getByText(/needs the admin role/).waitFor();
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body.protected).toBe(true);
    await expectIntact(b);
  });
});
