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
  let adminKey: { id: string; key: string };
  let b: ConsoleBrowser;
  let p: Page;

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    db = await createDatabase();
    idp = await startTestIdp([
      { client_id: 'sb-acme', client_secret: 'idp-secret', redirect_uris: ['http://127.0.0.1:9/t/acme/federation/callback'] },
    ]);
    registry = await startRegistry(env, db.url, {
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${await freePort()}`,
      REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1',
    });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    viewerKey = String((await api(registry.url, key, 'POST', '/v1/keys', { name: 'viewer', role: 'viewer' })).body.apiKey);
    const admin = await api(registry.url, key, 'POST', '/v1/keys', { name: 'admin', role: 'admin' });
    adminKey = { id: String(admin.body.id), key: String(admin.body.apiKey) };
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await idp?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  const signIn = async (apiKey: string) => {
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
    expect(await focusedId(p, 'auth-idp-issuer')).toBe('auth-idp-issuer');
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
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body).toMatchObject({
      protected: true,
      idp: { kind: 'oidc', issuer: idp.issuer, clientId: 'sb-acme', clientSecretSet: true },
    });
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

  it('trusts an enterprise IdP for ID-JAGs: a refused JWKS URL and an unknown group scope sit beside their fields, the good one is listed and removable', async () => {
    await signIn(key);
    const trust = () => p.getByRole('button', { name: 'Trust identity provider', exact: true }).click();
    await p.getByLabel('Assertion issuer (iss)').fill(idp.issuer);
    await p.getByLabel('Signing keys (JWKS) address').fill('http://169.254.169.254/jwks');
    await p.getByLabel('Clients allowed to present assertions').fill('mcp-client-1');
    await trust();
    await expectFieldError(p, 'ema-jwks-uri', /169\.254\.169\.254|not allowed|refused/i);
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body.enterpriseIdps).toEqual([]);
    await p.getByLabel('Signing keys (JWKS) address').fill(`${idp.issuer}/jwks`);
    await p.getByLabel('Groups and their scopes (optional)').fill('engineering: mcp:tools\nfinance: mcp:ledger');
    await trust();
    await expectFieldError(p, 'ema-group-scopes', /group finance: scope "mcp:ledger" is not one of the tenant's scopes/);
    await p.getByLabel('Groups and their scopes (optional)').fill('engineering: mcp:tools');
    await trust();
    await p.getByTestId('ema-notice').getByText(`Now trusting ${idp.issuer}.`).waitFor();
    await p.getByTestId('ema-table').getByText('engineering → mcp:tools').waitFor();
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body.enterpriseIdps).toEqual([
      {
        issuer: idp.issuer,
        jwksUri: `${idp.issuer}/jwks`,
        allowedClients: ['mcp-client-1'],
        subjectClaim: 'sub',
        groupsClaim: 'groups',
        groupScopes: { engineering: ['mcp:tools'] },
      },
    ]);
    // The test form runs at the live authorization server: this workspace is not published yet, which it says beside the field.
    await p.getByLabel('ID-JAG to test').fill('eyJhbGciOiJFUzI1NiJ9.e30.c2ln');
    await p.getByRole('button', { name: 'Test assertion', exact: true }).click();
    await expectFieldError(p, 'ema-check-assertion', /publish the workspace first/);
    await expectIntact(b);
    await b.shot('auth-page-enterprise-idps');
    await p.getByRole('button', { name: `Stop trusting ${idp.issuer}`, exact: true }).click();
    await p.getByTestId('ema-notice').getByText(`No longer trusting ${idp.issuer}.`).waitFor();
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body.enterpriseIdps).toEqual([]);
  });

  it('hides what a viewer cannot do, and says which role it needs', async () => {
    await signIn(viewerKey);
    await p.getByText('Your role (viewer) can view this; changing the auth settings needs the admin role.').waitFor();
    expect(await p.getByRole('button', { name: 'Save auth settings' }).count()).toBe(0);
    expect(await p.getByLabel('Require OAuth sign-in for the MCP endpoint').isChecked()).toBe(true);
    for (const [page, note, control] of [
      ['Servers', 'registering a server needs the admin role', 'Register and discover'],
      ['Settings', 'changing the settings needs the admin role', 'Save settings'],
      ['Team', 'adding or removing administrators needs the owner role', 'Add administrator'],
    ] as const) {
      await p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: page, exact: true }).click();
      await p.getByRole('heading', { name: page, exact: true, level: 1 }).waitFor();
      await p.getByText(note, { exact: false }).waitFor();
      expect(await p.getByRole('button', { name: control }).count()).toBe(0);
    }
    await expectIntact(b);
    await b.shot('auth-page-viewer');
  });

  it('shows the 403 naming the role beside the form when a save is forced after the role was lowered', async () => {
    await signIn(adminKey.key);
    await p.getByRole('button', { name: 'Save auth settings', exact: true }).waitFor();
    // The owner lowers this key to viewer while the page is open: the button is still there, the registry refuses.
    expect((await api(registry.url, key, 'PATCH', `/v1/keys/${adminKey.id}`, { role: 'viewer' })).status).toBe(200);
    await p.getByLabel('Require OAuth sign-in for the MCP endpoint').uncheck();
    await save();
    await p.getByText(/a viewer cannot PATCH \/v1\/tenant\/auth; it needs the admin role/).waitFor();
    expect((await api(registry.url, key, 'GET', '/v1/tenant/auth')).body.protected).toBe(true);
    await expectIntact(b);
  });
});
