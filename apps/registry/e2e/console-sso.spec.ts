// Console SSO and SCIM (issue 44 item 4), in Chromium against the built registry: the owner sets
// up single sign-on to the workspace's own IdP (a real oidc-provider) and a SCIM token on the
// Enterprise page; admins then sign in through that IdP (role from the group claim, just-in-time
// provisioning); what SCIM provisions shows in the console, and a SCIM deprovisioning ends the
// person's console session at once and keeps them out.
import type { Page } from 'playwright-core';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { expectIntact, openConsoleBrowser, type ConsoleBrowser } from './support/console-browser';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './support/harness';

/** A SCIM answer as the tests read it (resources, list responses and errors share one loose shape). */
type ScimResource = Record<string, unknown> & { id: string; userName: string; members?: unknown[] };
type ScimBody = Record<string, unknown> & {
  id: string;
  active: boolean;
  totalResults: number;
  itemsPerPage: number;
  schemas: string[];
  Resources: ScimResource[];
};

jest.setTimeout(120_000);

const GROUPS: Record<string, string[]> = { alice: ['Switchboard Admins', 'Everyone'], mallory: ['Everyone'], bob: [] };

describe('console SSO and SCIM in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let idp: TestIdp;
  let key: string;
  let scimToken: string;
  let b: ConsoleBrowser;
  let p: Page;

  const scim = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${registry.url}/scim/v2/acme${path}`, {
      method,
      headers: { authorization: `Bearer ${scimToken}`, ...(body ? { 'content-type': 'application/scim+json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as ScimBody };
  };
  const nav = (label: string) =>
    p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click();
  const heading = (name: string) => p.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
  /** A fresh browser state, then SSO sign-in for workspace acme as `user` at the IdP. */
  const ssoSignIn = async (user: string) => {
    idp.user = user;
    await b.context.clearCookies();
    await p.goto(`${registry.url}/console/`);
    await p.evaluate(() => sessionStorage.clear());
    await p.reload();
    await p.getByRole('button', { name: 'Sign in with your company account (SSO)' }).click();
    await p.getByLabel('Workspace').fill('acme');
    await p.getByRole('button', { name: 'Sign in with SSO', exact: true }).click();
  };

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    p.on('dialog', () => undefined);
    db = await createDatabase();
    registry = await startRegistry(env, db.url, { REGISTRY_ALLOW_HTTP_HOSTS: 'localhost,127.0.0.1' });
    idp = await startTestIdp(
      [
        {
          client_id: 'switchboard-console',
          client_secret: 'console-client-secret',
          redirect_uris: [`${registry.url}/console/sso/callback`],
        },
      ],
      {
        groups: (sub) => GROUPS[sub] ?? [],
      },
    );
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await idp?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  it('lets the owner set up single sign-on and create a SCIM token on the Enterprise page', async () => {
    await p.goto(`${registry.url}/console/`);
    await p.getByLabel('Tenant API key').fill(key);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await nav('Enterprise');
    await heading('Enterprise');
    expect(await p.getByTestId('sso-redirect-uri').textContent()).toBe(`${registry.url}/console/sso/callback`);
    await p.getByLabel('Issuer URL').fill(idp.issuer);
    await p.getByLabel('Client ID').fill('switchboard-console');
    await p.getByLabel('Client secret').fill('console-client-secret');
    await p.getByLabel('Group → role').fill('Switchboard Admins = admin\nbroken line');
    await p.getByRole('button', { name: 'Save single sign-on' }).click();
    expect(await p.getByTestId('sso-role-map-error').textContent()).toContain('Line 2');
    await p.getByLabel('Group → role').fill('Switchboard Admins = admin');
    await p.getByLabel(/just-in-time/).check();
    await p.getByRole('button', { name: 'Save single sign-on' }).click();
    await p.getByRole('status').getByText('Single sign-on is saved.').waitFor();
    expect(await p.getByLabel('Client secret').inputValue()).toBe('');
    await p.getByText('A secret is stored (encrypted). Leave empty to keep it.').waitFor();

    await p.getByLabel('Token name').fill('Entra ID');
    await p.getByRole('button', { name: 'Create SCIM token' }).click();
    scimToken = await p.getByTestId('scim-token-value').inputValue();
    expect(scimToken).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
    expect(await p.getByTestId('scim-base-url').textContent()).toBe(`${registry.url}/scim/v2/acme`);
    await expectIntact(b);
  });

  it('shows people and admins SCIM provisions on the Users and Team pages', async () => {
    const bob = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'bob@idp.test',
      externalId: 'ext-bob',
      displayName: 'Bob SCIM',
    });
    expect(bob.status).toBe(201);
    const group = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Switchboard Admins',
      members: [{ value: bob.body.id }],
    });
    expect(group.status).toBe(201);
    await nav('Users');
    await heading('Users');
    await p.locator('[data-testid="users-table"] tr[data-user="bob@idp.test"]').waitFor();
    await nav('Team');
    await heading('Team');
    await p.getByTestId('admins-table').getByText('bob@idp.test').waitFor();
    await expectIntact(b);
  });

  it('signs an admin in through the IdP, creating them just in time with the role their group maps to', async () => {
    await ssoSignIn('alice');
    await p.getByTestId('signed-in-as').getByText('Signed in as alice@idp.test').waitFor();
    await nav('Team');
    await heading('Team');
    await p.getByTestId('admins-table').getByText('alice@idp.test').waitFor();
    // An admin, not an owner: the console offers no way to add administrators.
    expect(await p.getByRole('button', { name: 'Add administrator' }).count()).toBe(0);
    await expectIntact(b);
  });

  it('refuses someone in no mapped group, and says why on the sign-in page', async () => {
    await ssoSignIn('mallory');
    await p.getByTestId('signin-error').getByText('Sign-in was cancelled or refused').waitFor();
    const admins = (await api(registry.url, key, 'GET', '/v1/admins')).body.admins as Array<{ username: string }>;
    expect(admins.map((a) => a.username)).not.toContain('mallory@idp.test');
    const audit = (await api(registry.url, key, 'GET', '/v1/audit')).body.entries as Array<{
      action: string;
      target: string;
      details: { reason?: string };
    }>;
    expect(audit.find((e) => e.action === 'console.sign_in_refused' && e.target === 'mallory@idp.test')?.details.reason).toContain(
      'maps to a console role',
    );
    await expectIntact(b);
  });

  it('ends a SCIM-provisioned admin\u2019s console session when SCIM deprovisions them, and keeps them out', async () => {
    await ssoSignIn('bob');
    await p.getByTestId('signed-in-as').getByText('Signed in as Bob SCIM').waitFor();
    const bob = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "bob@idp.test"')}`);
    const off = await scim('PATCH', `/Users/${bob.body.Resources[0].id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.body.active).toBe(false);
    // The very next console request is refused: the page falls back to sign-in.
    await nav('Users');
    await p.getByText('Your session has ended. Sign in again to continue.').waitFor();
    await ssoSignIn('bob');
    await p.getByTestId('signin-error').getByText('Sign-in was cancelled or refused').waitFor();
    await expectIntact(b);
  });
});
