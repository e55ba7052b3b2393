// What the console auth specs share (console-auth.spec.ts, console-auth-bff.spec.ts): a real registry
// process (Postgres, Redis) whose console signs in through a small local authorization server
// implementing the platform issuer's contract (fake-platform-issuer.ts; the real one is apps/auth),
// tenants acme and globex with a server each, and the browser's part of the BFF sign-in.
import { startFakePlatformIssuer, type FakePlatformIssuer } from './fake-platform-issuer';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  startRegistry,
  startUpstream,
  testEnv,
  type Proc,
} from './harness';

export const ADA = { username: 'ada@acme.test', password: 'correct horse battery', name: 'Ada Lovelace' };
export const BOB = { username: 'bob', password: 'globex-password-1', name: 'Bob' };

/** Set-Cookie headers of a response by cookie name (the whole header line). */
export function setCookies(res: Response): Map<string, string> {
  return new Map(res.headers.getSetCookie().map((line) => [line.slice(0, line.indexOf('=')), line]));
}
export const cookieValue = (line: string | undefined) => (line ? line.slice(line.indexOf('=') + 1).split(';')[0] : '');

export interface AuthStack {
  env: ReturnType<typeof testEnv>;
  issuer: FakePlatformIssuer;
  registry: Proc;
  keyAcme: string;
  keyGlobex: string;
  close(): Promise<void>;
}

export async function startAuthStack(): Promise<AuthStack> {
  const env = testEnv();
  const db = await createDatabase();
  const issuer = await startFakePlatformIssuer();
  const upstreamA = await startUpstream('acme-up', [{ name: 'acme_tool' }]);
  const upstreamG = await startUpstream('globex-up', [{ name: 'globex_tool' }]);
  // REGISTRY_PORT=0 and no REGISTRY_PUBLIC_URL: the redirect URI and audience follow the bound port.
  const registry = await startRegistry(env, db.url, { CONSOLE_ISSUER: issuer.issuer });
  issuer.client.redirectUri = `${registry.url}/console/callback`;
  issuer.client.audience = `${registry.url}/v1`;
  issuer.verifyLogin = async (tenant, username, password) => {
    const res = await api(registry.url, env.internalToken, 'POST', '/internal/console/verify-login', { tenant, username, password });
    return { ok: res.status === 200 && res.body.ok === true, name: res.body.name as string | undefined };
  };
  const keyAcme = await createTenant(registry.url, env.operatorKey, 'acme', ADA);
  const keyGlobex = await createTenant(registry.url, env.operatorKey, 'globex', BOB);
  await registerAndDiscover(registry.url, keyAcme, { id: 'acme-srv', name: 'Acme server', url: upstreamA.url });
  await registerAndDiscover(registry.url, keyGlobex, { id: 'globex-srv', name: 'Globex server', url: upstreamG.url });
  return {
    env,
    issuer,
    registry,
    keyAcme,
    keyGlobex,
    close: async () => {
      await registry.stop();
      await issuer.close();
      await upstreamA.close();
      await upstreamG.close();
      await db.drop();
      await cleanRedis(env);
    },
  };
}

/** The browser's part of the BFF sign-in, and requests made with its session cookie. */
export function bffHelpers(s: AuthStack) {
  const { registry, issuer } = s;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${registry.url}${path}`, { redirect: 'manual', headers });

  /** The browser's part: /console/login → issuer → /console/callback; returns the callback's response and the login cookie. */
  async function signIn(login: FakePlatformIssuer['nextLogin'], query = 'workspace=acme&returnTo=%23%2Ftools') {
    const start = await get(`/console/login?${query}`);
    expect(start.status).toBe(302);
    const loginCookie = cookieValue(setCookies(start).get('sb_console_login'));
    issuer.nextLogin = login;
    const atIssuer = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
    expect(atIssuer.status).toBe(302);
    const callback = new URL(atIssuer.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(`${registry.url}/console/callback`);
    const done = await get(`${callback.pathname}${callback.search}`, { cookie: `sb_console_login=${loginCookie}` });
    return { start, callback, done, loginCookie };
  }

  const session = (cookie: string, extra: Record<string, string> = { 'x-switchboard-console': '1' }) => ({
    cookie: `sb_console=${cookie}`,
    ...extra,
  });
  const asSession = async (cookie: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${registry.url}${path}`, {
      method,
      headers: { ...session(cookie), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json().catch(() => ({}))) as Record<string, unknown> & { error?: { code: string; message: string; field?: string } },
    };
  };

  async function signedIn(user: { username: string; password: string }, tenant = 'acme'): Promise<string> {
    const { done } = await signIn({ tenant, ...user });
    expect(done.headers.get('location')).toMatch(/^\/console\/(#\/.*)?$/);
    const cookie = cookieValue(setCookies(done).get('sb_console'));
    expect(cookie).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    return cookie;
  }
  return { get, signIn, session, asSession, signedIn };
}
