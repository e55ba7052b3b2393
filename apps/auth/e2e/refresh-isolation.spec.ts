import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { obtainTokens, registerPublicClient } from '@switchboard/testing';
import { INTERNAL_TOKEN, startAuth, type TestAuth } from './support/auth-harness';

jest.setTimeout(90_000);

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** More users than the service's Postgres pool has connections (20). */
const HOSTILE_USERS = 25;

/**
 * Issue 41, finding 5: a vault refresh held a pooled Postgres connection while it called the
 * tenant's token endpoint, so one tenant whose endpoint hangs, driven by 20 users at once,
 * stalled token issuance for every tenant. Here the hostile tenant's endpoint never answers
 * while more than a pool's worth of its users need a refresh; another tenant's OAuth flow and
 * vault token read complete at once, and the hostile tenant's callers end with a 503 when the
 * bound passes.
 */
describe('a hanging connector token endpoint does not stall other tenants', () => {
  let auth: TestAuth;
  let hangingAs: http.Server;
  const sockets = new Set<Socket>();
  let tokenRequests = 0;

  beforeAll(async () => {
    hangingAs = http.createServer((req, res) => {
      const origin = `http://${req.headers.host ?? ''}`;
      if (req.url === '/.well-known/openid-configuration') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token` }));
        return;
      }
      // The token endpoint reads the request and never answers.
      tokenRequests++;
      req.resume();
    });
    hangingAs.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => hangingAs.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(hangingAs.address() as AddressInfo).port}`;
    auth = await startAuth({
      tenants: [
        { id: 'evil', auth: { scopes: ['mcp:tools'], connectors: { crm: { issuer, clientId: 'crm', scopes: ['openid'] } } } },
        { id: 'good', auth: { scopes: ['mcp:tools'], connectors: { crm: { issuer, clientId: 'crm', scopes: ['openid'] } } } },
      ],
    });
  });
  afterAll(async () => {
    await auth?.close();
    for (const s of sockets) s.destroy();
    if (hangingAs.listening) await new Promise<void>((resolve) => hangingAs.close(() => resolve()));
  });

  const exchange = (tenant: string, subjectToken: string) =>
    fetch(`${auth.baseUrl}/internal/t/${tenant}/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_TOKEN}` },
      body: new URLSearchParams({ grant_type: EXCHANGE, subject_token: subjectToken, audience: 'crm' }).toString(),
    });

  it('serves another tenant\u2019s OAuth flow and vault read while more than a pool of refreshes hang', async () => {
    // The hostile tenant's users, each with an expired upstream token that needs a refresh.
    const evilTokens: string[] = [];
    const clientId = await registerPublicClient(auth.issuer('evil'));
    for (let i = 0; i < HOSTILE_USERS; i++) {
      const t = await obtainTokens(auth.issuer('evil'), { user: `u${i}`, clientId });
      evilTokens.push(String(t.body.access_token));
      await auth.services.vault.put('evil', `evil|local|u${i}`, 'crm', {
        accessToken: `old-${i}`,
        refreshToken: `rt-${i}`,
        expiresAt: Math.floor(Date.now() / 1000) - 60,
      });
    }
    const zed = await obtainTokens(auth.issuer('good'), { user: 'zed' });
    await auth.services.vault.put('good', 'good|local|zed', 'crm', {
      accessToken: 'zed-upstream',
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });

    const hostile = evilTokens.map((t) =>
      exchange('evil', t).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string } })),
    );
    // Wait until the hostile endpoint holds its refreshes.
    const deadline = Date.now() + 10_000;
    while (tokenRequests < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(tokenRequests).toBeGreaterThanOrEqual(8);

    // Meanwhile, another tenant: a full OAuth flow (authorize, sign-in, consent, token) and a vault token read.
    const started = Date.now();
    const flow = await obtainTokens(auth.issuer('good'), { user: 'yan' });
    expect(flow.status).toBe(200);
    const read = await exchange('good', String(zed.body.access_token));
    expect(read.status).toBe(200);
    expect(((await read.json()) as { access_token: string }).access_token).toBe('zed-upstream');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(3_000);
    // The hostile tenant has at most its cap of refreshes in flight, not one per user.
    expect(tokenRequests).toBeLessThanOrEqual(8);

    // Take the hanging endpoint down (no new connections, open ones dropped): every hostile caller gets a clear 503, none a 500.
    const closed = new Promise<void>((resolve) => hangingAs.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
    const outcomes = await Promise.all(hostile);
    expect(outcomes.map((o) => o.status)).toEqual(Array(HOSTILE_USERS).fill(503));
    expect(outcomes.every((o) => o.body.error === 'temporarily_unavailable')).toBe(true);
    // The links stay (a transient failure is no refusal).
    const { rows } = await auth.services.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${auth.schema}".vault_token WHERE tenant_id = 'evil'`,
    );
    expect(rows[0]?.n).toBe(HOSTILE_USERS);
  });
});
