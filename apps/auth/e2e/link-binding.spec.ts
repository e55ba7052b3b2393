import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { obtainTokens, parseForm, TestBrowser } from '@switchboard/testing';
import { INTERNAL_TOKEN, freePort, sealTenantSecret, startAuth, type TestAuth } from './support/auth-harness';
import { linkAccount } from './support/link-account';
import { startTestIdp, type TestIdp } from './support/test-idp';

jest.setTimeout(60_000);

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * Issue 41, finding 2 — "connector link URLs hand an upstream account to whoever opens them":
 * two users of one tenant, one link. The link is honoured only for its own user's signed-in
 * session, once, after a confirmation; link URLs never reach the service's log.
 */
describe('connector links are bound to the person they were made for', () => {
  let connectorAs: TestIdp;
  let auth: TestAuth;
  const logLines: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    connectorAs = await startTestIdp([
      { client_id: 'crm', client_secret: 'crm-client-secret', redirect_uris: [`http://127.0.0.1:${port}/t/acme/connectors/callback`] },
    ]);
    // Everything the service logs, at the most verbose level, is kept to search for link URLs.
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    auth = await startAuth({
      port,
      logger: pino({ level: 'trace' }, sink),
      tenants: [
        {
          id: 'acme',
          name: 'Acme',
          auth: {
            scopes: ['mcp:tools'],
            connectors: {
              crm: {
                issuer: connectorAs.issuer,
                clientId: 'crm',
                clientSecret: sealTenantSecret('acme', 'connector:crm', 'crm-client-secret'),
                scopes: ['openid'],
              },
            },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await auth?.close();
    await connectorAs?.close();
  });

  const linkUrlFor = async (accessToken: string): Promise<string> => {
    const res = await fetch(`${auth.baseUrl}/internal/t/acme/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_TOKEN}` },
      body: new URLSearchParams({ grant_type: EXCHANGE, subject_token: accessToken, audience: 'crm' }).toString(),
    });
    expect(res.status).toBe(400);
    return ((await res.json()) as { link_url: string }).link_url;
  };
  const exchangeStatus = async (accessToken: string) =>
    (
      await fetch(`${auth.baseUrl}/internal/t/acme/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_TOKEN}` },
        body: new URLSearchParams({ grant_type: EXCHANGE, subject_token: accessToken, audience: 'crm' }).toString(),
      })
    ).status;
  const vaultRows = async () =>
    (await auth.services.pool.query<{ subject: string }>(`SELECT subject FROM "${auth.schema}".vault_token ORDER BY subject`)).rows.map(
      (r) => r.subject,
    );

  it('user B opening user A\u2019s link stores nothing: refused before the upstream, even with a forged confirmation', async () => {
    const alice = await obtainTokens(auth.issuer('acme'), { user: 'alice' });
    const bob = await obtainTokens(auth.issuer('acme'), { user: 'bob' });
    const aliceLink = await linkUrlFor(String(alice.body.access_token));
    // Bob is signed in to acme in his browser and clicks the link Alice sent him.
    connectorAs.user = 'bob-upstream';
    const logins = connectorAs.logins.length;
    const { res, url } = await bob.browser.follow(aliceLink);
    expect(res.status).toBe(403);
    const page = await res.text();
    expect(page).toContain('data-testid="wrong-account"');
    expect(page).toContain('you are signed in as <strong>bob</strong>');
    expect(page).not.toContain('alice');
    expect(page).not.toContain('<form');
    // A hand-made confirmation (no valid csrf for his session can exist) is refused the same way.
    const ticket = new URL(url).searchParams.get('ticket') ?? '';
    const forged = await bob.browser.postForm(`${auth.issuer('acme')}/account/link/crm`, { ticket, csrf: 'A'.repeat(43) });
    expect(forged.status).toBe(403);
    // The upstream was never asked, nothing is stored under Alice, and Alice is still not linked.
    expect(connectorAs.logins.length).toBe(logins);
    expect(await vaultRows()).toEqual([]);
    expect(await exchangeStatus(String(alice.body.access_token))).toBe(400);

    // Alice's own link still works for her (the refusal did not use it up), and stores her upstream account.
    connectorAs.user = 'alice-upstream';
    const linked = await linkAccount(alice.browser, aliceLink);
    expect(linked.confirmation).toContain('data-testid="account">alice<');
    expect(linked.confirmation).toContain('data-testid="connector">crm<');
    expect(await linked.res.text()).toContain('Connected');
    expect(await vaultRows()).toEqual(['acme|local|alice']);
    const token = await fetch(`${auth.baseUrl}/internal/t/acme/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_TOKEN}` },
      body: new URLSearchParams({ grant_type: EXCHANGE, subject_token: String(alice.body.access_token), audience: 'crm' }).toString(),
    });
    const upstream = (await token.json()) as { access_token: string };
    expect(connectorAs.accessTokens.get(upstream.access_token)).toBe('alice-upstream');
  });

  it('refuses a replayed ticket, and two confirmations racing on one ticket start one authorization', async () => {
    const carol = await obtainTokens(auth.issuer('acme'), { user: 'carol' });
    const link = await linkUrlFor(String(carol.body.access_token));
    const { res: pageRes, url } = await carol.browser.follow(link);
    expect(pageRes.status).toBe(200);
    const form = parseForm(await pageRes.text(), /\/account\/link\//);
    const action = new URL(form.action, url).href;
    const [a, b] = await Promise.all([carol.browser.postForm(action, form.fields), carol.browser.postForm(action, form.fields)]);
    expect([a.status, b.status].sort()).toEqual([303, 400]);
    // Opening the used link again, or posting its form again, is refused.
    const again = await carol.browser.follow(link);
    expect(again.res.status).toBe(400);
    expect(await again.res.text()).toContain('already used');
    expect((await carol.browser.postForm(action, form.fields)).status).toBe(400);
  });

  it('asks a browser without a session to sign in first, then brings it back to the confirmation', async () => {
    const dave = await obtainTokens(auth.issuer('acme'), { user: 'dave' });
    const link = await linkUrlFor(String(dave.body.access_token));
    const fresh = new TestBrowser();
    const { res } = await fresh.follow(link);
    expect(res.status).toBe(401);
    const page = await res.text();
    expect(page).toContain('data-testid="sign-in-first"');
    const signIn = /href="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&') ?? '';
    const loginPage = await (await fresh.get(new URL(signIn, auth.baseUrl).href)).text();
    const login = parseForm(loginPage, /\/login$/);
    // The development login (this service runs in development mode) as dave, then back to the link.
    const signedIn = await fresh.postForm(new URL(login.action, auth.baseUrl).href, { ...login.fields, username: 'dave' });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toMatch(/^\/t\/acme\/account\/link\/crm\?ticket=/);
    const back = await fresh.get(new URL(signedIn.headers.get('location') ?? '', auth.baseUrl).href);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('data-testid="account">dave<');
    // A sign-in's way back is only ever a link page of this tenant.
    const open = await fresh.postForm(new URL(login.action, auth.baseUrl).href, { username: 'dave', return: 'https://evil.example/phish' });
    expect(open.headers.get('location')).toBe('/t/acme/account/connections');
  });

  it('refuses expired, tampered and foreign-connector tickets', async () => {
    const erin = await obtainTokens(auth.issuer('acme'), { user: 'erin' });
    const link = new URL(await linkUrlFor(String(erin.body.access_token)));
    const [id, sub, , mac] = (link.searchParams.get('ticket') ?? '').split('.');
    // An expiry in the past with the original MAC, and another subject with the original MAC.
    const expired = `${id}.${sub}.1000000000.${mac}`;
    const otherSubject = `${id}.${Buffer.from('acme|mallory').toString('base64url')}.9999999999.${mac}`;
    for (const t of [expired, otherSubject, 'garbage']) {
      const res = await erin.browser.get(`${auth.issuer('acme')}/account/link/crm?ticket=${encodeURIComponent(t)}`);
      expect(res.status).toBe(400);
    }
    expect((await erin.browser.follow(`${auth.issuer('acme')}/connectors/crm/link?ticket=x`)).res.status).toBe(400);
  });

  it('never writes a link URL or ticket to the log', () => {
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain('ticket=');
    expect(log).not.toMatch(/\/connectors\/crm\/link/);
  });
});

/** Without SWITCHBOARD_ENV=development the connected-accounts page has no any-name sign-in: it would make any subject's link usable. */
describe('the connected-accounts any-name sign-in outside development', () => {
  let auth: TestAuth;

  beforeAll(async () => {
    auth = await startAuth({
      env: {
        SWITCHBOARD_ENV: 'production',
        CATALOG_SECRETS_KEY: randomBytes(32).toString('base64'),
        INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
      },
      tenants: [{ id: 'globex', name: 'Globex', auth: { scopes: ['mcp:tools'] } }],
    });
  });
  afterAll(async () => {
    await auth?.close();
  });

  it('offers no form and refuses a typed user name', async () => {
    const b = new TestBrowser();
    const page = await (await b.get(`${auth.issuer('globex')}/account/connections/login`)).text();
    expect(page).toContain('data-testid="sign-in-elsewhere"');
    expect(page).not.toContain('name="username"');
    const typed = await b.postForm(`${auth.issuer('globex')}/account/connections/login`, { username: 'alice' });
    expect(typed.status).toBe(403);
    expect(typed.headers.get('set-cookie')).toBeNull();
    expect(await (await b.get(`${auth.issuer('globex')}/account/connections`)).text()).toContain('You are not signed in');
  });
});
