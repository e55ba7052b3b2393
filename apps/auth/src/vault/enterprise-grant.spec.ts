import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Pool } from 'pg';
import { SecretBox } from '@switchboard/secret-box';
import { migrateAuthSchema } from '../db/migrate';
import { UpstreamOidc } from '../federation/upstream-oidc';
import { SigningKeys } from '../keys/signing-keys';
import { authTenant } from '../tenants/tenant-auth';
import { TenantSecrets } from '../tenants/tenant-secrets';
import { tenantAuthSchema, type ConnectorSettings } from '@switchboard/catalog';
import { EnterpriseGrants } from './enterprise-grant';
import { GRANT_CACHE_LIMITS, GrantTokenCache } from './grant-token-cache';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A local stand-in for a connector's AS: discovery plus a token endpoint answering what the test sets (or never, `hang`). */
interface StandInAs {
  issuer: string;
  requests: URLSearchParams[];
  answer: { status: number; body: unknown } | 'hang';
  close(): Promise<void>;
}

async function standInAs(): Promise<StandInAs> {
  const held: Array<() => void> = [];
  const state: StandInAs = { issuer: '', requests: [], answer: { status: 200, body: {} }, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url?.startsWith('/.well-known/')) {
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ issuer: state.issuer, token_endpoint: `${state.issuer}/token` }));
      }
      state.requests.push(new URLSearchParams(Buffer.concat(chunks).toString()));
      const answer = state.answer;
      if (answer === 'hang') return void held.push(() => res.destroy());
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  state.issuer = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  state.close = () => {
    for (const go of held) go();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return state;
}

/** Bounds of obtaining upstream tokens from enterprise identity: size, time, lifetime, caching, and what a refusal says. */
describe('EnterpriseGrants', () => {
  const schema = `auth_eg_${randomBytes(5).toString('hex')}`;
  const box = new SecretBox(randomBytes(32));
  const tenant = authTenant('acme', 'Acme', tenantAuthSchema.parse({ protected: true }), {
    authPublicUrl: 'http://auth.test',
    gatewayPublicUrl: 'http://gw.test',
  });
  const silent = { info: () => undefined, warn: () => undefined };
  let pool: Pool;
  let as: StandInAs;
  let grants: EnterpriseGrants;
  let cache: GrantTokenCache;
  let connector: ConnectorSettings;

  beforeAll(async () => {
    pool = new Pool({ connectionString: DATABASE_URL, max: 4 });
    await migrateAuthSchema(pool, schema);
    as = await standInAs();
    cache = new GrantTokenCache(pool, schema, box);
    const upstream = new UpstreamOidc({ allowHosts: ['127.0.0.1'], timeoutS: 1 });
    grants = new EnterpriseGrants(
      {
        upstream,
        secrets: new TenantSecrets(randomBytes(32)),
        keys: new SigningKeys(pool, schema, box),
        logger: silent,
        config: { VAULT_REFRESH_SKEW_S: 30 },
      },
      cache,
    );
    connector = {
      issuer: as.issuer,
      clientId: 'crm',
      scopes: ['read'],
      grant: { kind: 'token_exchange', resource: 'https://crm.test/mcp' },
    };
  });
  afterAll(async () => {
    await as?.close();
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
  });

  const exchange = (subject: string) => grants.token(tenant, subject, 'crm', connector, connector.grant!);

  it('exchanges the tenant AS assertion (not a client token), caches the answer and caps its lifetime', async () => {
    as.answer = {
      status: 200,
      body: {
        access_token: 'carol-up',
        token_type: 'Bearer',
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        expires_in: 999_999,
      },
    };
    const first = await exchange('acme|local|carol');
    expect(first).toMatchObject({ kind: 'ok', token: { accessToken: 'carol-up' } });
    expect(first.kind === 'ok' && first.token.expiresAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + GRANT_CACHE_LIMITS.maxTtlS);
    const sent = as.requests[0]!;
    expect(Object.fromEntries(sent)).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      resource: 'https://crm.test/mcp',
      scope: 'read',
    });
    const claims = JSON.parse(Buffer.from(String(sent.get('subject_token')).split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ iss: tenant.issuer, sub: 'acme|local|carol', aud: as.issuer, tid: 'acme' });
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(60);
    // Cached: the next call does not reach the AS.
    expect(await exchange('acme|local|carol')).toMatchObject({ kind: 'ok', token: { accessToken: 'carol-up' } });
    expect(as.requests).toHaveLength(1);
  });

  it('refuses an oversized token and does not cache it', async () => {
    as.answer = {
      status: 200,
      body: { access_token: 'x'.repeat(GRANT_CACHE_LIMITS.tokenChars + 1), token_type: 'Bearer', expires_in: 600 },
    };
    expect(await exchange('acme|local|big')).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining(`over ${GRANT_CACHE_LIMITS.tokenChars} characters`),
    });
    expect(await cache.get('acme', 'acme|local|big', 'crm', '', 0)).toBeUndefined();
  });

  it('passes on a bounded, printable refusal and treats 5xx and a hanging AS as transient', async () => {
    as.answer = { status: 400, body: { error: 'invalid_grant', error_description: `no\u0007 ${'z'.repeat(1000)}` } };
    const refused = await exchange('acme|local|dave');
    expect(refused).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(/^the connector\u2019s authorization server refused the request \(invalid_grant: no  z+…\)$/),
    });
    expect(refused.kind === 'refused' && refused.reason.length).toBeLessThan(300);
    as.answer = { status: 503, body: { error: 'server_error' } };
    expect(await exchange('acme|local|dave')).toMatchObject({ kind: 'unavailable' });
    as.answer = 'hang';
    const started = Date.now();
    expect(await exchange('acme|local|dave')).toEqual({
      kind: 'unavailable',
      reason: 'the connector\u2019s authorization server did not answer in time',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a connector AS the outbound guard forbids (metadata address), without calling it', async () => {
    const metadata: ConnectorSettings = { ...connector, issuer: 'http://169.254.169.254' };
    expect(await grants.token(tenant, 'acme|local|erin', 'crm', metadata, connector.grant!)).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('cannot be reached from the platform'),
    });
  });
});
