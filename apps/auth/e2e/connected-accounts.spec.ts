import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { INTERNAL_TOKEN, freePort, sealTenantSecret, startAuth, type TestAuth } from './support/auth-harness';
import { obtainTokens, parseForm, TestBrowser } from '@switchboard/testing';
import { linkAccount } from './support/link-account';
import { startTestIdp, type TestIdp } from './support/test-idp';
import { accountIdOf, idpIdOf } from '../src/users/subject';

jest.setTimeout(120_000);

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const CHROMIUM = '/usr/bin/chromium';

/** The end user's "Connected accounts" page on the auth service: list per tenant, unlink with a CSRF-bound POST. */
describe('connected accounts page', () => {
  let connectorAs: TestIdp;
  let auth: TestAuth;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    const port = await freePort();
    const cb = `http://127.0.0.1:${port}/t/acme/connectors/callback`;
    connectorAs = await startTestIdp([
      { client_id: 'crm', client_secret: 'crm-client-secret', redirect_uris: [cb] },
      { client_id: 'docs', redirect_uris: [cb] },
      // initech's enterprise IdP client (the same oidc-provider plays both roles).
      {
        client_id: 'sb-initech',
        client_secret: 'initech-idp-secret',
        redirect_uris: [`http://127.0.0.1:${port}/t/initech/federation/callback`],
      },
    ]);
    const connectors = {
      crm: {
        issuer: connectorAs.issuer,
        clientId: 'crm',
        clientSecret: sealTenantSecret('acme', 'connector:crm', 'crm-client-secret'),
        scopes: ['openid', 'email'],
      },
      docs: { issuer: connectorAs.issuer, clientId: 'docs', scopes: ['openid'] },
    };
    auth = await startAuth({
      port,
      tenants: [
        { id: 'acme', name: 'Acme', auth: { scopes: ['mcp:tools'], connectors } },
        { id: 'globex', auth: { scopes: ['mcp:tools'] } },
        {
          id: 'initech',
          name: 'Initech',
          auth: {
            scopes: ['mcp:tools'],
            idp: {
              kind: 'oidc',
              issuer: connectorAs.issuer,
              clientId: 'sb-initech',
              clientSecret: sealTenantSecret('initech', 'idp', 'initech-idp-secret'),
            },
            connectors: { crm: { issuer: connectorAs.issuer, clientId: 'crm', scopes: ['openid'] } },
          },
        },
      ],
    });
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh`);
    profile = await mkdtemp(path.join(tmpdir(), 'sb-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      chromiumSandbox: false,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    await auth?.close();
    await connectorAs?.close();
  });

  const exchange = (subjectToken: string, audience: string) =>
    fetch(`${auth.baseUrl}/internal/t/acme/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_TOKEN}` },
      body: new URLSearchParams({ grant_type: EXCHANGE, subject_token: subjectToken, audience }).toString(),
    });

  /** Signs `user` in to acme (a browser session at its authorization server) and links `connectors` through the vault's link flow. */
  const signInAndLink = async (user: string, connectors: string[]) => {
    const t = await obtainTokens(auth.issuer('acme'), { user });
    const token = String(t.body.access_token);
    for (const c of connectors) {
      const need = (await (await exchange(token, c)).json()) as { link_url: string };
      const { res } = await linkAccount(t.browser, need.link_url);
      expect(await res.text()).toContain('Connected');
    }
    return { browser: t.browser, token };
  };
  const page = (b: TestBrowser) => b.get(`${auth.issuer('acme')}/account/connections`);

  it('lists only the signed-in user’s linked accounts, and unlinks one in Chromium (the next call asks to link again)', async () => {
    const carol = await signInAndLink('carol', ['crm', 'docs']);
    await signInAndLink('dave', ['crm']);

    // Chromium gets carol's session at acme (the cookies her sign-in set).
    const host = new URL(auth.baseUrl);
    const names = carol.browser.cookieNames(host.host).filter((n) => n.startsWith('sb_acme_session'));
    expect(names.sort()).toEqual(['sb_acme_session', 'sb_acme_session.sig']);
    await context.addCookies(names.map((name) => ({ name, value: carol.browser.cookieValue(host, name) ?? '', url: auth.baseUrl })));
    const p = context.pages()[0] ?? (await context.newPage());
    const problems: string[] = [];
    p.on('pageerror', (e) => problems.push(e.message));
    await p.goto(`${auth.issuer('acme')}/account/connections`);
    await p.getByRole('heading', { name: 'Connected accounts', level: 1 }).waitFor();
    expect(await p.getByTestId('user').textContent()).toBe('carol');
    const rows = p.getByTestId('accounts').locator('tbody tr');
    expect(await rows.count()).toBe(2);
    const crm = rows.filter({ hasText: 'crm' });
    expect(await crm.locator('td').nth(1).textContent()).toBe('openid email');
    expect(await crm.locator('time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await p.content()).not.toContain('dave');

    await p.getByRole('button', { name: 'Unlink docs' }).click();
    await p.getByTestId('notice').getByText('Unlinked docs.').waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td').first().textContent()).toBe('crm');
    expect(problems).toEqual([]);

    const need = await exchange(carol.token, 'docs');
    expect(need.status).toBe(400);
    expect(((await need.json()) as { link_url: string }).link_url).toContain('/t/acme/connectors/docs/link?ticket=');
    expect((await exchange(carol.token, 'crm')).status).toBe(200);
    const { rows: left } = await auth.services.pool.query<{ subject: string; connector: string }>(
      `SELECT subject, connector FROM "${auth.schema}".vault_token ORDER BY subject, connector`,
    );
    expect(left).toEqual([
      { subject: 'acme|local|carol', connector: 'crm' },
      { subject: 'acme|local|dave', connector: 'crm' },
    ]);
  });

  it('refuses an unlink without the session-bound csrf token, without a session, and with a forged session cookie', async () => {
    const erin = await signInAndLink('erin', ['crm']);
    const html = await (await page(erin.browser)).text();
    const form = parseForm(html, /\/crm\/unlink$/);
    const action = new URL(form.action, auth.baseUrl).href;
    // No token, and a token of another connector (same session): 403, nothing removed.
    expect((await erin.browser.postForm(action, {})).status).toBe(403);
    const docsAction = action.replace('/crm/unlink', '/docs/unlink');
    expect((await erin.browser.postForm(docsAction, form.fields)).status).toBe(403);
    // Another browser's session (frank) cannot use erin's token.
    const frank = await signInAndLink('frank', []);
    expect((await frank.browser.postForm(action, form.fields)).status).toBe(403);
    // No session at all, and a session cookie whose signature does not match.
    expect(
      (
        await fetch(action, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form.fields).toString(),
        })
      ).status,
    ).toBe(401);
    const sid = erin.browser.cookieValue(new URL(auth.baseUrl), 'sb_acme_session') ?? '';
    const forged = await fetch(`${auth.issuer('acme')}/account/connections`, {
      headers: { cookie: `sb_acme_session=${sid}; sb_acme_session.sig=AAAA` },
    });
    expect(await forged.text()).toContain('You are not signed in');
    const forgedAccount = await fetch(`${auth.issuer('acme')}/account/connections`, {
      headers: { cookie: `sb_acme_account=v2.abc.${'A'.repeat(60)}` },
    });
    expect(await forgedAccount.text()).toContain('You are not signed in');
    // A bad connector id is a 400 naming it, not a query.
    expect((await erin.browser.postForm(action.replace('/crm/unlink', '/..%2F/unlink'), form.fields)).status).toBe(400);
    expect(await (await page(erin.browser)).text()).toContain('data-connector="crm"');
    // The right token unlinks; a second time it is gone (404).
    const ok = await erin.browser.postForm(action, form.fields);
    expect(ok.status).toBe(303);
    expect((await erin.browser.postForm(action, form.fields)).status).toBe(404);
    expect(await (await page(erin.browser)).text()).toContain('You have not linked any accounts yet');
  });

  it('is per tenant: a session at acme is not a session at globex', async () => {
    const gina = await signInAndLink('gina', ['crm']);
    const other = await gina.browser.get(`${auth.issuer('globex')}/account/connections`);
    expect(other.status).toBe(200);
    expect(await other.text()).toContain('You are not signed in');
    expect((await gina.browser.get(`${auth.baseUrl}/t/nope/account/connections`)).status).toBe(404);
  });

  it('signs a user without a session in through the tenant’s enterprise IdP, then lists and unlinks their accounts', async () => {
    // Subjects of an enterprise IdP are namespaced by it (issue 41): `initech|oidc-<issuer hash>|<sub>`.
    const idp = idpIdOf(auth.tenants.get('initech')!.settings.idp);
    await auth.services.vault.put('initech', accountIdOf('initech', idp, 'ivy'), 'crm', { accessToken: 'upstream-token-of-ivy' });
    await auth.services.vault.put('initech', accountIdOf('initech', idp, 'other'), 'crm', { accessToken: 'upstream-token-of-other' });
    connectorAs.user = 'ivy';
    const b = new TestBrowser();
    const out = await (await b.get(`${auth.issuer('initech')}/account/connections`)).text();
    expect(out).toContain('You are not signed in');
    const { res, url } = await b.follow(`${auth.issuer('initech')}/account/connections/login`);
    expect(url).toBe(`${auth.issuer('initech')}/account/connections`);
    const html = await res.text();
    expect(html).toContain('data-testid="user">ivy<');
    expect(html).toContain('data-connector="crm"');
    expect(html).not.toContain('upstream-token-of-ivy');
    // The sign-in cookie is the page's own: it is no session at the authorization server.
    expect(b.cookieNames(new URL(auth.baseUrl).host)).not.toContain('sb_initech_session');
    const form = parseForm(html, /\/crm\/unlink$/);
    expect((await b.postForm(new URL(form.action, auth.baseUrl).href, form.fields)).status).toBe(303);
    const { rows } = await auth.services.pool.query<{ subject: string }>(
      `SELECT subject FROM "${auth.schema}".vault_token WHERE tenant_id = 'initech'`,
    );
    expect(rows).toEqual([{ subject: accountIdOf('initech', idp, 'other') }]);
    expect(await (await b.get(`${auth.issuer('initech')}/account/connections`)).text()).toContain('You have not linked any accounts yet');
  });

  it('offers the development login on a tenant without an IdP', async () => {
    const b = new TestBrowser();
    const page = await (await b.get(`${auth.issuer('globex')}/account/connections/login`)).text();
    const form = parseForm(page, /\/login$/);
    expect((await b.postForm(new URL(form.action, auth.baseUrl).href, { username: 'bad name' })).status).toBe(400);
    const res = await b.postForm(new URL(form.action, auth.baseUrl).href, { username: 'gus' });
    expect(res.status).toBe(303);
    expect(await (await b.get(`${auth.issuer('globex')}/account/connections`)).text()).toContain('data-testid="user">gus<');
    // initech signs in through its IdP only.
    expect((await b.postForm(`${auth.issuer('initech')}/account/connections/login`, { username: 'gus' })).status).toBe(400);
  });
});
