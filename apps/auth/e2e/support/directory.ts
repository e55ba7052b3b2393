import { randomBytes } from 'node:crypto';
import {
  api,
  authorizeUrl,
  cleanRedis,
  createDatabase,
  createTenant,
  parseForm,
  pkcePair,
  registerPublicClient,
  startRegistry,
  testEnv,
  token,
  TestBrowser,
  type Proc,
} from '@switchboard/testing';
import { freePort, startAuth, type TestAuth } from './auth-harness';

export const REDIRECT_URI = 'https://claude.ai/api/mcp/auth_callback';

export interface DirectoryStack {
  auth: TestAuth;
  registry: Proc;
  registryUrl: string;
  /** The registry's database (tests seed it directly to reach a bound). */
  databaseUrl: string;
  /** The INTERNAL_TOKEN auth presents to the registry. */
  internalToken: string;
  /** The tenant's API key (owner) at the registry. */
  key: string;
  issuer: string;
  close(): Promise<void>;
}

/**
 * A real registry (built app, fresh database) holding tenant `acme` and its user directory, and
 * an auth service that verifies directory sign-ins with it over /internal/users/*. `env` goes to
 * auth (e.g. SWITCHBOARD_ENV=production, lockout settings).
 */
export async function startDirectoryStack(env: Record<string, string> = {}, o: { host?: string } = {}): Promise<DirectoryStack> {
  const db = await createDatabase();
  const tenv = { ...testEnv(), internalToken: randomBytes(24).toString('hex') };
  const authPort = await freePort();
  // WebAuthn refuses IP addresses as RP ids: passkey tests use `localhost`.
  const publicUrl = `http://${o.host ?? '127.0.0.1'}:${authPort}`;
  // AUTH_INTERNAL_URL: the registry delivers SCIM deprovisionings to this auth service.
  const registry = await startRegistry(tenv, db.url, { AUTH_PUBLIC_URL: publicUrl, AUTH_INTERNAL_URL: publicUrl });
  const registryUrl = registry.url;
  const key = await createTenant(registryUrl, tenv.operatorKey, 'acme');
  const auth = await startAuth({
    port: authPort,
    tenants: [{ id: 'acme', name: 'Acme', auth: {} }],
    env: {
      INTERNAL_TOKEN: tenv.internalToken,
      REGISTRY_INTERNAL_URL: registryUrl,
      CATALOG_SECRETS_KEY: randomBytes(32).toString('base64'),
      LIMITS_KEY_PREFIX: `dir${randomBytes(4).toString('hex')}:`,
      AUTH_PUBLIC_URL: publicUrl,
      ...env,
    },
  });
  return {
    auth,
    registry,
    registryUrl,
    internalToken: tenv.internalToken,
    databaseUrl: db.url,
    key,
    issuer: auth.issuer('acme'),
    close: async () => {
      await auth.close();
      await registry.stop();
      await cleanRedis(tenv);
      await db.drop();
    },
  };
}

/** Invites a user through the admin API; returns the one-time link. */
export async function invite(stack: DirectoryStack, username: string): Promise<string> {
  const res = await api(stack.registryUrl, stack.key, 'POST', '/v1/users', { username, name: username.toUpperCase() });
  if (res.status !== 201) throw new Error(`invite ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.link as { url: string }).url;
}

/** Sets a password through a one-time link (GET the page, POST its form); returns the POST answer. */
export async function setPassword(link: string, password: string, browser = new TestBrowser()): Promise<{ status: number; html: string }> {
  const page = await browser.get(link);
  if (page.status !== 200) return { status: page.status, html: await page.text() };
  const form = parseForm(await page.text(), /set-password$/);
  const res = await browser.postForm(new URL(form.action, link).href, { ...form.fields, password, confirm: password });
  return { status: res.status, html: await res.text() };
}

export interface Attempt {
  browser: TestBrowser;
  clientId: string;
  verifier: string;
  /** The sign-in page's URL and HTML. */
  at: string;
  html: string;
}

/** Starts an authorization (fresh public client, PKCE) and follows it to the sign-in page. */
export async function startSignIn(issuer: string, browser = new TestBrowser()): Promise<Attempt> {
  const clientId = await registerPublicClient(issuer, REDIRECT_URI);
  const { verifier, challenge } = pkcePair();
  const { res, url } = await browser.follow(authorizeUrl(issuer, { clientId, redirectUri: REDIRECT_URI, challenge }), (u) =>
    u.href.startsWith(REDIRECT_URI),
  );
  return { browser, clientId, verifier, at: url, html: await res.text() };
}

/**
 * Posts one of the sign-in page's forms, then follows through consent to the client's redirect.
 * Returns the authorization code (undefined when sign-in was refused) and the last answer.
 */
export async function submitSignIn(
  a: Attempt,
  action: RegExp,
  fields: Record<string, string>,
): Promise<{ status: number; html: string; code?: string }> {
  const form = parseForm(a.html, action);
  let res = await a.browser.postForm(new URL(form.action, a.at).href, { ...form.fields, ...fields });
  let at = new URL(form.action, a.at).href;
  for (let step = 0; step < 6; step++) {
    const loc = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && loc) {
      const next = new URL(loc, at);
      if (next.href.startsWith(REDIRECT_URI)) return { status: res.status, html: '', code: next.searchParams.get('code') ?? undefined };
      at = next.href;
      res = await a.browser.get(at);
      continue;
    }
    const html = await res.text();
    if (res.status === 200 && html.includes('/confirm"')) {
      const consent = parseForm(html, /\/confirm$/);
      at = new URL(consent.action, at).href;
      res = await a.browser.postForm(at, { ...consent.fields, decision: 'approve' });
      continue;
    }
    return { status: res.status, html };
  }
  throw new Error('sign-in did not settle');
}

/** Redeems a code at the token endpoint. */
export async function redeem(issuer: string, a: Attempt, code: string) {
  return token(issuer, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: a.clientId,
    code_verifier: a.verifier,
  });
}
