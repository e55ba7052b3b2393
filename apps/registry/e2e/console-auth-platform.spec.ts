// Interop: the console's BFF sign-in against the real platform issuer (apps/auth, in-process as its
// own e2e tests run it) — the registry's /console/login → the issuer's sign-in form → the issuer
// checking the password with the registry's verify-login → the registry's callback → a session.
// Test-only cross-app imports, as readiness.spec.ts does.
import { startAuth, type TestAuth } from '../../auth/e2e/support/auth-harness';
import { freePort, parseForm, TestBrowser } from '@switchboard/testing';
import { cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './support/harness';

jest.setTimeout(90_000);

const ADA = { username: 'ada', password: 'correct horse battery', name: 'Ada Lovelace' };

describe('console sign-in through the real platform issuer (apps/auth)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let auth: TestAuth;
  let registry: Proc;
  let base: string;

  beforeAll(async () => {
    db = await createDatabase();
    // Each side needs the other's URL: reserve the registry's port first.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    auth = await startAuth({
      tenants: [],
      env: {
        CONSOLE_REDIRECT_URI: `${base}/console/callback`,
        CONSOLE_AUDIENCE: `${base}/v1`,
        REGISTRY_INTERNAL_URL: base,
        INTERNAL_TOKEN: env.internalToken,
      },
    });
    registry = await startRegistry(env, db.url, { REGISTRY_PORT: String(port), CONSOLE_ISSUER: `${auth.baseUrl}/platform` });
    await createTenant(registry.url, env.operatorKey, 'acme', ADA);
  });

  afterAll(async () => {
    await registry?.stop();
    await auth?.close();
    await db?.drop();
    await cleanRedis(env);
  });

  /** Follows redirects from `res` (at `from`) until they land back on the console page. */
  async function land(browser: TestBrowser, res: Response, from: string): Promise<URL> {
    let current = from;
    for (let i = 0; i < 15; i++) {
      const loc = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !loc)
        throw new Error(`stopped at ${current} (${res.status}): ${(await res.text()).slice(0, 300)}`);
      const next = new URL(loc, current);
      if (next.origin === base && next.pathname === '/console/') return next;
      current = next.href;
      res = await browser.get(current);
    }
    throw new Error('too many redirects');
  }

  async function signIn(password: string): Promise<{ browser: TestBrowser; landed?: URL; refused?: Response }> {
    const browser = new TestBrowser();
    const { res, url } = await browser.follow(`${base}/console/login?workspace=acme&returnTo=%23%2Ftools`);
    expect(res.status).toBe(200);
    expect(url.startsWith(auth.baseUrl)).toBe(true);
    const html = await res.text();
    const form = parseForm(html, /\/login$/);
    const action = new URL(form.action, url).href;
    const posted = await browser.postForm(action, { ...form.fields, workspace: 'acme', username: ADA.username, password });
    // A refused password re-renders the issuer's form (4xx) instead of redirecting.
    if (posted.status >= 400) return { browser, refused: posted };
    return { browser, landed: await land(browser, posted, action) };
  }

  it('signs an admin in end to end and the session names them', async () => {
    const { browser, landed } = await signIn(ADA.password);
    expect(landed?.hash).toBe('#/tools');
    expect(landed?.search).toBe('');
    const me = await browser.request(`${base}/v1/session`, { method: 'GET', headers: { 'x-switchboard-console': '1' } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ tenant: 'acme', role: 'owner', user: { username: ADA.username, name: ADA.name }, via: 'session' });
    expect(browser.cookieNames(new URL(base).host)).toEqual(['sb_console']);
  });

  it('a wrong password (checked by the registry) stays at the issuer and opens no session', async () => {
    const { browser, landed, refused } = await signIn('not the password at all');
    expect(landed).toBeUndefined();
    expect(refused?.status).toBe(401);
    expect(browser.cookieNames(new URL(base).host)).not.toContain('sb_console');
  });
});
