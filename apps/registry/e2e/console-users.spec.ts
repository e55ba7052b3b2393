// The console's Users page (issue 41), in Chromium: an admin invites people to the tenant user
// directory and gets the one-time link to pass on (no e-mail), sees bad input beside its field,
// disables and enables users, hands out reset links and removes passkeys. The passkey itself is
// registered through the registry's internal endpoint here (the auth service's ceremony with a
// virtual authenticator is apps/auth/e2e/passkey-sign-in.spec.ts).
import type { Page } from 'playwright-core';
import { expectFieldError, expectIntact, freePort, openConsoleBrowser, type ConsoleBrowser } from './support/console-browser';
import { api, cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './support/harness';

jest.setTimeout(120_000);

describe('console Users page in Chromium', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let key: string;
  let b: ConsoleBrowser;
  let p: Page;
  let authUrl: string;

  const internal = (path: string, body: unknown) =>
    fetch(`${registry.url}/internal/users/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env.internalToken}` },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    b = await openConsoleBrowser();
    p = b.page;
    // Disabling a user and removing a passkey ask for confirmation: the admin says yes.
    await p.addInitScript('window.confirm = () => true;');
    db = await createDatabase();
    authUrl = `http://127.0.0.1:${await freePort()}`;
    registry = await startRegistry(env, db.url, { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${await freePort()}`, AUTH_PUBLIC_URL: authUrl });
    key = await createTenant(registry.url, env.operatorKey, 'acme');
  });

  afterAll(async () => {
    await b?.close();
    await registry?.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  const nav = (label: string) =>
    p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click();
  const heading = (name: string) => p.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
  const row = (username: string) => p.locator(`[data-testid="users-table"] tr[data-user="${username}"]`);
  /** Waits until the list (reloaded after an action) shows `username` with `state`. */
  const shows = (username: string, state: string) => row(username).locator('td').nth(1).getByText(state, { exact: true }).waitFor();

  it('invites a user and shows the one-time link to pass on', async () => {
    await p.goto(`${registry.url}/console/`);
    await p.getByLabel('Tenant API key').fill(key);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await nav('Users');
    await heading('Users');
    await p.getByLabel('User name').fill('alice@example.com');
    await p.getByLabel('Name (optional)').fill('Alice');
    await p.getByRole('button', { name: 'Invite user' }).click();
    const url = (await p.getByTestId('user-link-url').inputValue()) ?? '';
    expect(url).toMatch(new RegExp(`^${authUrl}/t/acme/users/set-password\\?token=[A-Za-z0-9_-]{43}$`));
    expect(await p.getByTestId('user-link').textContent()).toContain('no e-mail is sent');
    await shows('alice@example.com', 'invited');
    await expectIntact(b);
  });

  it('shows a bad or taken user name beside its field', async () => {
    await p.getByLabel('User name').fill('not a name');
    await p.getByRole('button', { name: 'Invite user' }).click();
    await expectFieldError(p, 'user-username', /1-64 chars/);
    await p.getByLabel('User name').fill('alice@example.com');
    await p.getByRole('button', { name: 'Invite user' }).click();
    await expectFieldError(p, 'user-username', /already exists/);
    await expectIntact(b);
  });

  it('disables and enables a user, and hands out a new invite link', async () => {
    await p.getByRole('button', { name: 'Disable alice@example.com' }).click();
    await p.getByRole('status').getByText('alice@example.com is disabled.').waitFor();
    await shows('alice@example.com', 'disabled');
    expect(
      await row('alice@example.com')
        .getByRole('button', { name: /New invite link/ })
        .count(),
    ).toBe(0);
    await p.getByRole('button', { name: 'Enable alice@example.com' }).click();
    await p.getByRole('status').getByText('alice@example.com is enabled again.').waitFor();
    await shows('alice@example.com', 'invited');
    await p.getByRole('button', { name: 'New invite link for alice@example.com' }).click();
    await p.getByRole('heading', { name: 'Invite link for alice@example.com' }).waitFor();
    await expectIntact(b);
  });

  it('gives an active user a password-reset link, lists their passkeys and removes one', async () => {
    const invited = await api(registry.url, key, 'POST', '/v1/users', { username: 'bob' });
    const token = new URL((invited.body.link as { url: string }).url).searchParams.get('token');
    expect((await internal('redeem-link', { tenant: 'acme', token, password: 'bobs long passphrase' })).status).toBe(200);
    const added = await internal('passkeys/add', {
      tenant: 'acme',
      username: 'bob',
      credentialId: 'Y3JlZGVudGlhbC1vZi1ib2I',
      publicKey: 'cHVibGljLWtleS1vZi1ib2I',
      counter: 0,
      transports: ['internal'],
      name: 'Laptop',
    });
    expect(added.status).toBe(201);
    await nav('Team');
    await heading('Team');
    await nav('Users');
    await heading('Users');
    await shows('bob', 'active');
    expect(await row('bob').locator('[data-passkey]').allTextContents()).toEqual([expect.stringContaining('Laptop')]);

    await p.getByRole('button', { name: 'Reset link for bob' }).click();
    await p.getByRole('heading', { name: 'Password-reset link for bob' }).waitFor();
    expect(await p.getByTestId('user-link-url').inputValue()).toContain('/t/acme/users/set-password?token=');

    await p.getByRole('button', { name: 'Remove passkey Laptop of bob' }).click();
    await p.getByRole('status').getByText('Removed passkey “Laptop” of bob.').waitFor();
    await row('bob').getByText('none', { exact: true }).waitFor();
    expect(await row('bob').locator('[data-passkey]').count()).toBe(0);
    const audit = await api(registry.url, key, 'GET', '/v1/audit');
    expect((audit.body.entries as Array<{ action: string }>).map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'user.invite',
        'user.disable',
        'user.enable',
        'user.reinvite',
        'user.accept-invite',
        'user.passkey-add',
        'user.reset-link',
        'user.passkey-remove',
      ]),
    );
    await b.shot('users');
    await expectIntact(b);
  });
});
