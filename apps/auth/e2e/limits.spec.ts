/**
 * Issue 13, item 5: the auth service's limits behind the shipped proxy settings (k8s/base's
 * TRUST_PROXY), on the shared limiter. A spoofed X-Forwarded-For does not reset the DCR or
 * sign-in limit; 30 parallel wrong passwords ⇒ at most the limit verified, the rest 429
 * without a registry call, and the next right password after the window succeeds; an account
 * is locked after repeated failures with a growing lock.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { INTERNAL_TOKEN, startAuth, type TestAuth } from './support/auth-harness';
import { authorizeUrl, parseForm, pkcePair, register, TestBrowser } from '@switchboard/testing';
import { startRegistryStandIn, type StandInRegistry } from './support/registry-stand-in';

const CONSOLE = 'switchboard-console';
const AUDIENCE = 'http://127.0.0.1:3100/v1';
const CALLBACK = 'http://127.0.0.1:3100/console/callback';
const PASSWORD = 'correct horse battery staple';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** TRUST_PROXY exactly as the shipped base manifest sets it. */
function shippedTrustProxy(): string {
  const file = path.resolve(__dirname, '../../../k8s/base/auth.yaml');
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const o = doc.toJS() as { kind?: string; data?: Record<string, string> } | null;
    if (o?.kind === 'ConfigMap' && o.data?.TRUST_PROXY !== undefined) return o.data.TRUST_PROXY;
  }
  throw new Error('k8s/base/auth.yaml sets no TRUST_PROXY');
}

describe('auth limits behind the shipped proxy settings', () => {
  let registry: StandInRegistry;
  let auth: TestAuth;
  let issuer: string;

  beforeAll(async () => {
    registry = await startRegistryStandIn(INTERNAL_TOKEN);
    registry.accounts.set('acme|alice', { password: PASSWORD, name: 'Alice' });
    registry.accounts.set('acme|carol', { password: PASSWORD, name: 'Carol' });
    registry.accounts.set('acme|dave', { password: PASSWORD, name: 'Dave' });
    auth = await startAuth({
      tenants: [{ id: 'acme', name: 'Acme', auth: { scopes: ['mcp:tools'] } }],
      env: {
        TRUST_PROXY: shippedTrustProxy(),
        LIMITS_REDIS_URL: REDIS_URL,
        LIMITS_KEY_PREFIX: `test:auth-limits:${randomUUID()}:`,
        DCR_RATE_LIMIT_PER_MIN: '3',
        CONSOLE_REDIRECT_URI: CALLBACK,
        CONSOLE_AUDIENCE: AUDIENCE,
        REGISTRY_INTERNAL_URL: registry.url,
        CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: '5',
        CONSOLE_LOGIN_WINDOW_S: '30',
        CONSOLE_LOCKOUT_THRESHOLD: '3',
        CONSOLE_LOCKOUT_BASE_S: '1',
        CONSOLE_LOCKOUT_MAX_S: '4',
      },
    });
    issuer = `${auth.baseUrl}/platform`;
  });
  afterAll(async () => {
    await auth?.close();
    await registry?.close();
  });

  it('the shipped manifest does not say true', () => {
    expect(shippedTrustProxy()).not.toBe('true');
  });

  it('a fresh spoofed X-Forwarded-For per request does not reset the DCR limit; another real client is unaffected', async () => {
    const metadata = { client_name: 'x', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], token_endpoint_auth_method: 'none' };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await register(auth.issuer('acme'), metadata, { 'x-forwarded-for': `10.9.${i}.${i}, 198.51.100.7` })).status);
    expect(statuses.slice(0, 3)).toEqual([201, 201, 201]);
    expect(statuses.slice(3)).toEqual([429, 429, 429]);
    expect((await register(auth.issuer('acme'), metadata, { 'x-forwarded-for': '198.51.100.8' })).status).toBe(201);
  });

  /** Opens a console sign-in form as one client address (the proxy's appended X-Forwarded-For entry). */
  async function openForm(clientIp: string): Promise<{ browser: TestBrowser; action: string; fields: Record<string, string> }> {
    const browser = new TestBrowser();
    const { challenge } = pkcePair();
    const { res, url } = await browser.follow(authorizeUrl(issuer, { clientId: CONSOLE, redirectUri: CALLBACK, challenge }), (u) =>
      u.href.startsWith(CALLBACK),
    );
    expect(res.status).toBe(200);
    const form = parseForm(await res.text(), /\/login$/);
    return { browser, action: new URL(form.action, url).href, fields: { ...form.fields, 'x-ip': clientIp } };
  }

  async function post(
    f: Awaited<ReturnType<typeof openForm>>,
    fields: Record<string, string>,
    spoof: string = randomUUID(),
  ): Promise<number> {
    const { 'x-ip': ip, ...form } = { ...f.fields, ...fields };
    const res = await f.browser.request(f.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `${spoof}, ${ip}` },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    await res.body?.cancel();
    return res.status;
  }

  it('30 parallel wrong passwords: at most the limit verified, the rest 429 without a registry call; the right password after the window signs in', async () => {
    const f = await openForm('203.0.113.30');
    registry.calls.length = 0;
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => post(f, { workspace: 'acme', username: 'alice', password: 'wrong' })),
    );
    expect(registry.calls.length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 401)).toHaveLength(registry.calls.length);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - registry.calls.length);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // The per-IP limit holds whatever the spoofed part says.
    expect(await post(f, { workspace: 'acme', username: 'carol', password: PASSWORD }, 'another-spoof')).toBe(429);
    // After the window, the right password of an account that is not locked signs in (303 to the callback).
    const deadline = Date.now() + 25_000;
    let status = 0;
    while (Date.now() < deadline && status !== 303) {
      const fresh = await openForm('203.0.113.30');
      status = await post(fresh, { workspace: 'acme', username: 'carol', password: PASSWORD });
      expect([303, 429]).toContain(status);
      if (status !== 303) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(303);
  });

  it('locks an account after repeated failures (before asking the registry), for a growing time, and lets the right password in once it ends', async () => {
    const wrong = async (ip: string) => post(await openForm(ip), { workspace: 'acme', username: 'dave', password: 'nope' });
    // Fresh addresses: the per-IP limit is not what refuses here.
    expect(await wrong('192.0.2.1')).toBe(401);
    expect(await wrong('192.0.2.2')).toBe(401);
    expect(await wrong('192.0.2.3')).toBe(401);
    registry.calls.length = 0;
    const f = await openForm('192.0.2.4');
    expect(await post(f, { workspace: 'acme', username: 'dave', password: PASSWORD })).toBe(429);
    expect(registry.calls).toEqual([]);
    const lockout = auth.services.platform?.lockout;
    expect(await lockout?.lockedFor('acme|dave')).toBeGreaterThan(0);
    const deadline = Date.now() + 15_000;
    let status = 0;
    for (let i = 5; Date.now() < deadline && status !== 303; i++) {
      status = await post(await openForm(`192.0.2.${i}`), { workspace: 'acme', username: 'dave', password: PASSWORD });
      if (status !== 303) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(303);
  });
});
