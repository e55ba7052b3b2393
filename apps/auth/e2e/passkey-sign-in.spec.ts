import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { api, authorizeUrl, decodeJwt, pkcePair, registerPublicClient, token } from '@switchboard/testing';
import { invite, REDIRECT_URI, startDirectoryStack, type DirectoryStack } from './support/directory';

jest.setTimeout(120_000);

const CHROMIUM = '/usr/bin/chromium';

/** The authorization code of the redirect the client received (a function: the route handler sets `url` behind the compiler's back). */
const codeOf = (landed: { url?: URL }): string | null => landed.url?.searchParams.get('code') ?? null;

/**
 * Passkeys as a first-class sign-in (issue 41): a real Chromium with its virtual authenticator
 * (CDP WebAuthn domain) registers a passkey from the invite link and signs in with it, in
 * production mode, through SimpleWebAuthn on both sides.
 */
describe('passkey sign-in (Chromium virtual authenticator)', () => {
  let stack: DirectoryStack;
  let context: BrowserContext;
  let profile: string;
  let page: Page;
  const problems: string[] = [];
  /** Where the client's redirect landed (the callback is captured in the browser, never fetched). */
  const landed: { url?: URL } = {};

  beforeAll(async () => {
    stack = await startDirectoryStack({ SWITCHBOARD_ENV: 'production' }, { host: 'localhost' });
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh`);
    profile = await mkdtemp(path.join(tmpdir(), 'sb-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      chromiumSandbox: false,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await context.route('https://claude.ai/**', async (route) => {
      if (route.request().isNavigationRequest()) landed.url = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' });
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  });
  afterAll(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    await stack?.close();
  });

  /** Runs an authorization in the page up to the client's redirect (captured, never fetched); returns the code. */
  const authorizeWithPasskey = async (): Promise<{ code: string | null; status: string; clientId: string; verifier: string }> => {
    const clientId = await registerPublicClient(stack.issuer, REDIRECT_URI);
    const { verifier, challenge } = pkcePair();
    landed.url = undefined;
    // A fresh sign-in every time: no session left at the authorization server from the last run.
    await context.clearCookies();
    await page.goto(authorizeUrl(stack.issuer, { clientId, redirectUri: REDIRECT_URI, challenge }));
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const status = page.getByTestId('passkey-status');
    // Either the consent page (signed in) or a failure message on the sign-in page.
    await page.locator('button[value="approve"], [data-testid="passkey-status"]:has-text("Passkey failed")').first().waitFor();
    if (await page.locator('button[value="approve"]').count()) {
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(/^https:\/\/claude\.ai\//);
    }
    return { code: codeOf(landed), status: (await status.count()) ? ((await status.textContent()) ?? '') : '', clientId, verifier };
  };

  it('registers a passkey from the invite link and signs in with it (subject acme|dir|erin)', async () => {
    const link = await invite(stack, 'erin');
    await page.goto(link);
    expect(await page.getByTestId('username').textContent()).toBe('erin');
    await page.getByLabel('New password').fill('erins long passphrase');
    await page.getByLabel('Repeat it').fill('erins long passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByTestId('password-set').waitFor();
    await page.getByLabel('Name of this passkey').fill('Virtual key');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('[data-testid="passkey-status"]:not(:empty)').waitFor();
    expect([await page.getByTestId('passkey-status').textContent(), problems]).toEqual([expect.stringMatching(/^Passkey added\./), []]);

    const users = await api(stack.registryUrl, stack.key, 'GET', '/v1/users');
    const erin = (users.body.users as Array<{ username: string; passkeys: Array<{ name: string }> }>).find((u) => u.username === 'erin');
    expect(erin?.passkeys.map((p) => p.name)).toEqual(['Virtual key']);

    const run = await authorizeWithPasskey();
    expect(run.code).toEqual(expect.any(String));
    const t = await token(stack.issuer, {
      grant_type: 'authorization_code',
      code: run.code ?? '',
      redirect_uri: REDIRECT_URI,
      client_id: run.clientId,
      code_verifier: run.verifier,
    });
    expect(t.status).toBe(200);
    expect(decodeJwt(String(t.body.access_token)).payload).toMatchObject({ sub: 'acme|dir|erin' });
    const after = await api(stack.registryUrl, stack.key, 'GET', '/v1/users');
    expect(
      (after.body.users as Array<{ username: string; passkeys: Array<{ lastUsedAt: string | null }> }>).find((u) => u.username === 'erin')
        ?.passkeys[0]?.lastUsedAt,
    ).toEqual(expect.any(String));
    // Signed in at the authorization server, erin can add another passkey from her session.
    await page.goto(`${stack.issuer}/users/passkeys`);
    expect(await page.getByTestId('enroll-user').textContent()).toBe('erin');
    expect(problems).toEqual([]);
  });

  it("refuses the passkey once the admin removed it, and a disabled user's passkey", async () => {
    const users = await api(stack.registryUrl, stack.key, 'GET', '/v1/users');
    const id =
      (users.body.users as Array<{ username: string; passkeys: Array<{ id: string }> }>).find((u) => u.username === 'erin')?.passkeys[0]
        ?.id ?? '';
    await api(stack.registryUrl, stack.key, 'POST', '/v1/users/erin/disable');
    const disabled = await authorizeWithPasskey();
    expect(disabled.code).toBeNull();
    expect(disabled.status).toMatch(/^Passkey failed/);
    await api(stack.registryUrl, stack.key, 'POST', '/v1/users/erin/enable');
    expect((await api(stack.registryUrl, stack.key, 'DELETE', `/v1/users/erin/passkeys/${id}`)).status).toBe(200);
    const removed = await authorizeWithPasskey();
    expect(removed.code).toBeNull();
    expect(removed.status).toMatch(/^Passkey failed/);
  });
});
