import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { tenantAuthSchema } from '@switchboard/catalog';
import { listenLoopback, type LoopbackServer } from '@switchboard/testing';
import { authTenant } from '../tenants/tenant-auth';
import { EnterpriseJwks } from './enterprise-jwks';
import { IdJagRefusal } from './id-jag-refusal';
import { verifyIdJag } from './verify-id-jag';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ISSUER = 'https://idp.example.com';
let jwksServer: LoopbackServer;
/** What the JWKS endpoint does next: serve the key, a body past the cap, or never answer. */
let mode: 'keys' | 'huge' | 'hang' = 'keys';

beforeAll(async () => {
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwksServer = await listenLoopback(
    async (_req, res) => {
      if (mode === 'hang') return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(mode === 'huge' ? JSON.stringify({ keys: [jwk], pad: 'x'.repeat(200 * 1024) }) : JSON.stringify({ keys: [jwk] }));
    },
    { path: '/jwks' },
  );
});
afterAll(async () => jwksServer?.stop());

const tenantWith = (jwksUri: string) =>
  authTenant('acme', 'Acme', tenantAuthSchema.parse({ enterpriseIdps: [{ issuer: ISSUER, jwksUri, allowedClients: ['client-1'] }] }), {
    authPublicUrl: 'https://auth.example.com',
    gatewayPublicUrl: 'https://mcp.example.com',
  });

async function jag(o: { typ?: string; lifetime?: number; ahead?: number; aud?: string | string[] } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000) + (o.ahead ?? 0);
  return new SignJWT({ sub: 'alice', client_id: 'client-1', jti: `j-${Math.random()}`, resource: 'https://mcp.example.com/t/acme/mcp' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: o.typ ?? 'oauth-id-jag+jwt' })
    .setIssuer(ISSUER)
    .setAudience(o.aud ?? 'https://auth.example.com/t/acme')
    .setIssuedAt(now)
    .setExpirationTime(now + (o.lifetime ?? 300))
    .sign(privateKey);
}

async function checkOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IdJagRefusal);
  return (err as IdJagRefusal).check;
}

describe('verifyIdJag against a JWKS served on loopback', () => {
  const allowed = new EnterpriseJwks({ allowHosts: ['127.0.0.1'], timeoutMs: 500, maxBytes: 64 * 1024 });

  it('accepts a well-formed ID-JAG and names the subject', async () => {
    mode = 'keys';
    const v = await verifyIdJag(
      { tenant: tenantWith(jwksServer.url), assertion: await jag(), clientId: 'client-1', resource: undefined },
      allowed,
    );
    expect(v.subject).toBe('alice');
  });

  it('refuses a wrong typ, a second audience, an assertion issued in the future and a lifetime past the bound', async () => {
    mode = 'keys';
    const tenant = tenantWith(jwksServer.url);
    expect(
      await checkOf(verifyIdJag({ tenant, assertion: await jag({ typ: 'JWT' }), clientId: 'client-1', resource: undefined }, allowed)),
    ).toBe('typ');
    expect(
      await checkOf(
        verifyIdJag(
          {
            tenant,
            assertion: await jag({ aud: ['https://auth.example.com/t/acme', 'https://other.example'] }),
            clientId: 'client-1',
            resource: undefined,
          },
          allowed,
        ),
      ),
    ).toBe('aud');
    expect(
      await checkOf(verifyIdJag({ tenant, assertion: await jag({ ahead: 120 }), clientId: 'client-1', resource: undefined }, allowed)),
    ).toBe('iat');
    expect(
      await checkOf(verifyIdJag({ tenant, assertion: await jag({ lifetime: 601 }), clientId: 'client-1', resource: undefined }, allowed)),
    ).toBe('exp');
    expect(
      await checkOf(verifyIdJag({ tenant, assertion: 'x'.repeat(16 * 1024 + 1), clientId: 'client-1', resource: undefined }, allowed)),
    ).toBe('assertion');
  });

  it('refuses (check jwks) a JWKS past the byte cap, one that never answers, and a loopback JWKS without an allow-list', async () => {
    mode = 'huge';
    expect(
      await checkOf(
        verifyIdJag(
          { tenant: tenantWith(`${jwksServer.url}?huge`), assertion: await jag(), clientId: 'client-1', resource: undefined },
          allowed,
        ),
      ),
    ).toBe('jwks');
    mode = 'hang';
    const started = Date.now();
    expect(
      await checkOf(
        verifyIdJag(
          { tenant: tenantWith(`${jwksServer.url}?hang`), assertion: await jag(), clientId: 'client-1', resource: undefined },
          allowed,
        ),
      ),
    ).toBe('jwks');
    expect(Date.now() - started).toBeLessThan(5_000);
    mode = 'keys';
    const guarded = new EnterpriseJwks({ allowHosts: [] });
    expect(
      await checkOf(
        verifyIdJag(
          { tenant: tenantWith(`${jwksServer.url}?guarded`), assertion: await jag(), clientId: 'client-1', resource: undefined },
          guarded,
        ),
      ),
    ).toBe('jwks');
  });
});
