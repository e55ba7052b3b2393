/**
 * Resumption ids know their owner and expire (issue 41, deliverable 6): a `Last-Event-ID` is
 * sealed with the caller's scope and an `exp`; another caller of the same tenant is refused,
 * an expired id is refused saying so, and every GET resumption is admitted through the limiter
 * like a POST (a caller over its limit gets the limiter's −32029 and Retry-After).
 * A real gateway on Redis; a small JWKS server stands in for the tenant's authorization server.
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { sseEvents as events } from '@switchboard/testing';
import { LEGACY, POST_HEADERS, startGateway, type Json, type TestGateway } from './support/harness';

const PUBLIC_URL = 'http://gateway.test';
const STATE_KEY = randomBytes(32);
const RESUME_LIMIT = 3;

let gw: TestGateway;
let jwks: Server;
let authBase = '';
let signingKey: CryptoKey;
const kid = randomBytes(6).toString('hex');

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  signingKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' };
  jwks = createServer((req, res) => {
    if (req.url === '/t/prot/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  authBase = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
  gw = await startGateway({
    tenants: [
      { id: 'conf', name: 'Open', catalogs: [{ builtin: 'conformance' }] },
      { id: 'prot', name: 'Protected', catalogs: [{ builtin: 'conformance' }], auth: { protected: true, scopes: ['mcp:tools'] } },
      {
        id: 'lim',
        name: 'Limited',
        catalogs: [{ builtin: 'conformance' }],
        limits: { rate: { subject: { requestsPerSecond: 0.001, burst: RESUME_LIMIT } } },
      },
    ],
    env: {
      GATEWAY_STATE_KEYS: STATE_KEY.toString('base64'),
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_NAMESPACE: `e2e-resume-bind-${randomBytes(4).toString('hex')}:`,
      CATALOG_SOURCES: 'file',
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      AUTH_PUBLIC_URL: authBase,
    },
    listen: true,
  });
});

afterAll(async () => {
  await gw?.close();
  await new Promise((resolve) => jwks?.close(resolve));
});

/** An access token of the protected tenant for `subject`, as its authorization server would sign it. */
function tokenFor(subject: string): Promise<string> {
  return new SignJWT({ tid: 'prot', client_id: 'e2e-client', scope: 'mcp:tools' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(`${authBase}/t/prot`)
    .setAudience(`${PUBLIC_URL}/t/prot/mcp`)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(signingKey);
}

/** Calls test_reconnection (its stream closes after the priming event) and returns the priming event's id. */
async function primingId(tenant: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }),
  });
  expect(res.status).toBe(200);
  const ids = [...(await res.text()).matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

function resume(tenant: string, lastEventId: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(gw.mcpUrl(tenant), {
    headers: { accept: 'text/event-stream', 'mcp-protocol-version': LEGACY, 'last-event-id': lastEventId, ...headers },
  });
}

/** Seals `claims` as the gateway seals stream-event ids (HMAC-SHA256, key derived per purpose with HKDF). */
function resealed(claims: Json): string {
  const key = Buffer.from(hkdfSync('sha256', STATE_KEY, Buffer.alloc(0), 'switchboard/stream-event', 32));
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: number; message: string; data?: Json } }).error;

test('a resumption id issued to caller A is refused for caller B of the same tenant, and still serves A', async () => {
  const alice = { authorization: `Bearer ${await tokenFor('prot|alice')}` };
  const bob = { authorization: `Bearer ${await tokenFor('prot|bob')}` };
  const id = await primingId('prot', alice);

  const stolen = await resume('prot', id, bob);
  expect(stolen.status).toBe(403);
  expect((await errorOf(stolen)).message).toMatch(/Last-Event-ID was issued to another caller/);

  const own = await resume('prot', id, alice);
  expect(own.status).toBe(200);
  const final = JSON.parse((await events(own)()).data) as Json;
  expect(final).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: expect.stringContaining('Reconnected') }] } });
});

test('an expired resumption id is refused with an error that says so', async () => {
  const id = await primingId('conf');
  // The same id re-sealed with the gateway's key and an exp in the past: what a client that held it too long has.
  const claims = JSON.parse(Buffer.from(id.split('.')[0]!, 'base64url').toString('utf8')) as Json;
  const expired = resealed({ ...claims, exp: Math.floor(Date.now() / 1000) - 1 });

  const res = await resume('conf', expired);
  expect(res.status).toBe(400);
  expect((await errorOf(res)).message).toBe('Last-Event-ID has expired; call again');
  // The fresh id still resumes.
  const fresh = await resume('conf', id);
  expect(fresh.status).toBe(200);
  await fresh.text();
});

test(`GET resumption is admitted through the limiter: with a limit of ${RESUME_LIMIT}, the next one gets the limiter's error`, async () => {
  const id = await primingId('lim');
  for (let i = 0; i < RESUME_LIMIT; i++) {
    const res = await resume('lim', id);
    expect(res.status).toBe(200);
    await res.text();
  }
  const refused = await resume('lim', id);
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  const error = await errorOf(refused);
  expect(error.code).toBe(-32029);
  expect(error.message).toMatch(/^Rate limit exceeded: the per-caller limit/);
  expect(error.data).toMatchObject({ limit: 'subject' });
});
