import { type AuthorizeParams, authorizeUrl, parseForm, pkcePair, TestBrowser, token } from '@switchboard/testing';
import { INTERNAL_TOKEN, startAuth, type TestAuth } from './auth-harness';
import { startRegistryStandIn, type StandInRegistry } from './registry-stand-in';

export const CONSOLE = 'switchboard-console';
export const AUDIENCE = 'http://127.0.0.1:3100/v1';
export const CALLBACK = 'http://127.0.0.1:3100/console/callback';
export const CALLBACK_2 = 'https://console.switchboard.example/console/callback';
export const GENERIC = 'Unknown workspace, user name or password.';
export const ALICE_PASSWORD = 'correct horse battery staple';

export function consoleEnv(registry: StandInRegistry, extra: Record<string, string> = {}): Record<string, string> {
  return { CONSOLE_REDIRECT_URI: `${CALLBACK}, ${CALLBACK_2}`, CONSOLE_AUDIENCE: AUDIENCE, REGISTRY_INTERNAL_URL: registry.url, ...extra };
}

export const isCallback = (u: URL) => u.href.startsWith(CALLBACK) || u.href.startsWith(CALLBACK_2);

export interface LoginPage {
  res: Response;
  html: string;
  url: string;
}

/** Starts a console authorization in `browser` and returns the page it lands on (the sign-in form). */
export async function openLogin(
  browser: TestBrowser,
  issuer: string,
  p: Partial<AuthorizeParams> = {},
): Promise<LoginPage & { verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const { res, url } = await browser.follow(
    authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK, challenge, ...p }),
    isCallback,
  );
  return { res, html: await res.text(), url, verifier };
}

/** Posts the sign-in form of `page` with the given fields (the CSRF field comes from the page). */
export async function submit(browser: TestBrowser, page: LoginPage, fields: Record<string, string>): Promise<LoginPage> {
  const form = parseForm(page.html, /\/login$/);
  const url = new URL(form.action, page.url).href;
  const res = await browser.postForm(url, { ...form.fields, ...fields });
  return { res, html: res.status >= 300 && res.status < 400 ? '' : await res.text(), url };
}

/** The `value` attribute of an input, or undefined when it has none. */
export function inputValue(html: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  if (!input) throw new Error(`no input ${name}`);
  return /value="([^"]*)"/.exec(input)?.[1];
}

export function inputTag(html: string, name: string): string {
  return new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0] ?? '';
}

/** An auth service with the platform issuer on, in front of a registry stand-in that knows alice (acme) and bob (beta). */
export async function startConsoleIssuer(): Promise<{ registry: StandInRegistry; auth: TestAuth; issuer: string }> {
  const registry = await startRegistryStandIn(INTERNAL_TOKEN);
  registry.accounts.set('acme|alice', { password: ALICE_PASSWORD, name: 'Alice Example' });
  registry.accounts.set('beta|bob', { password: 'bobs-password', name: 'Bob' });
  const auth = await startAuth({
    tenants: [{ id: 'acme', name: 'Acme', auth: { scopes: ['mcp:tools'] } }],
    env: consoleEnv(registry, { CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: '50', ACCESS_TOKEN_TTL_S: '120' }),
  });
  return { registry, auth, issuer: `${auth.baseUrl}/platform` };
}

export interface SignInOptions {
  browser?: TestBrowser;
  workspace?: string;
  username?: string;
  password?: string;
  params?: Partial<AuthorizeParams>;
}

/** Signs in at `issuer` through the form and redeems the code; returns the token response. */
export async function signInAt(issuer: string, o: SignInOptions = {}) {
  const browser = o.browser ?? new TestBrowser();
  const page = await openLogin(browser, issuer, o.params);
  expect(page.res.status).toBe(200);
  const posted = await submit(browser, page, {
    workspace: o.workspace ?? 'acme',
    username: o.username ?? 'alice',
    password: o.password ?? ALICE_PASSWORD,
  });
  expect(posted.res.status).toBe(303);
  const { url: back } = await browser.follow(new URL(posted.res.headers.get('location') ?? '', posted.url).href, isCallback);
  const callback = new URL(back);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${back}`);
  const redirectUri = o.params?.redirectUri ?? CALLBACK;
  const t = await token(issuer, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: CONSOLE,
    code_verifier: page.verifier,
  });
  return { ...t, callback, browser };
}
