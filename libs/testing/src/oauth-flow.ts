import { createHash, randomBytes } from 'node:crypto';
import { TestBrowser, parseForm } from './browser';

export type Json = Record<string, unknown>;

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function register(
  issuer: string,
  metadata: Json,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

/** Registers a public client with one redirect URI. */
export async function registerPublicClient(
  issuer: string,
  redirectUri = 'https://claude.ai/api/mcp/auth_callback',
  extra: Json = {},
): Promise<string> {
  const r = await register(issuer, {
    client_name: 'Test client',
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...extra,
  });
  if (r.status !== 201) throw new Error(`registration failed: ${r.status} ${JSON.stringify(r.body)}`);
  return String(r.body.client_id);
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string;
  resource?: string;
  scope?: string;
  state?: string;
  extra?: Record<string, string>;
}

export function authorizeUrl(issuer: string, p: AuthorizeParams): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: p.clientId,
    redirect_uri: p.redirectUri,
    state: p.state ?? 'st-' + randomBytes(4).toString('hex'),
  });
  if (p.challenge !== undefined) q.set('code_challenge', p.challenge);
  if (p.method !== undefined) q.set('code_challenge_method', p.method);
  else if (p.challenge !== undefined) q.set('code_challenge_method', 'S256');
  if (p.resource !== undefined) q.set('resource', p.resource);
  if (p.scope !== undefined) q.set('scope', p.scope);
  for (const [k, v] of Object.entries(p.extra ?? {})) q.set(k, v);
  return `${issuer}/authorize?${q.toString()}`;
}

/**
 * Drives a browser from the authorization URL to the client's redirect: local login as
 * `user` (when asked) and approval on the consent page. Returns the final redirect URL.
 */
export async function approve(browser: TestBrowser, url: string, redirectUri: string, user = 'alice'): Promise<URL> {
  const isRedirect = (u: URL) =>
    u.href.startsWith(redirectUri) ||
    (u.protocol === 'http:' && u.hostname === '127.0.0.1' && u.pathname === new URL(redirectUri).pathname && u.port !== new URL(url).port);
  let { res, url: at } = await browser.follow(url, isRedirect);
  for (let step = 0; step < 4; step++) {
    if (res.status >= 300 && res.status < 400) return new URL(at);
    const html = await res.text();
    if (res.status !== 200) throw new Error(`unexpected ${res.status} at ${at}: ${html.slice(0, 300)}`);
    const origin = new URL(at).origin;
    if (html.includes('name="username"')) {
      const form = parseForm(html, /\/login$/);
      res = await browser.postForm(new URL(form.action, origin).href, { username: user });
    } else {
      const form = parseForm(html, /\/confirm$/);
      res = await browser.postForm(new URL(form.action, origin).href, { ...form.fields, decision: 'approve' });
    }
    const loc = res.headers.get('location');
    if (!loc) continue;
    const next = new URL(loc, at);
    if (isRedirect(next)) return next;
    ({ res, url: at } = await browser.follow(next.href, isRedirect));
  }
  throw new Error('authorization did not reach the redirect URI');
}

export async function token(
  issuer: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    body = { raw: text };
  }
  return { status: res.status, body, headers: res.headers };
}

/** Full happy path for a fresh public client: returns the token response and the client id. */
export async function obtainTokens(
  issuer: string,
  o: { redirectUri?: string; resource?: string; scope?: string; user?: string; browser?: TestBrowser; clientId?: string } = {},
) {
  const redirectUri = o.redirectUri ?? 'https://claude.ai/api/mcp/auth_callback';
  const clientId = o.clientId ?? (await registerPublicClient(issuer, redirectUri));
  const { verifier, challenge } = pkcePair();
  const browser = o.browser ?? new TestBrowser();
  const back = await approve(
    browser,
    authorizeUrl(issuer, { clientId, redirectUri, challenge, resource: o.resource, scope: o.scope }),
    redirectUri,
    o.user,
  );
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code in ${back.href}`);
  const t = await token(issuer, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    ...(o.resource ? { resource: o.resource } : {}),
  });
  return { ...t, clientId, redirectUri, browser, back, code, verifier };
}

export function decodeJwt(jwt: string): { header: Json; payload: Json } {
  const [h, p] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(h ?? '', 'base64url').toString()) as Json,
    payload: JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Json,
  };
}
