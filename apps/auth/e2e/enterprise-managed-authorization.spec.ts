/**
 * Enterprise-Managed Authorization (issue 44): the official SDK v2 client signs in at a local
 * enterprise IdP (a real oidc-provider), exchanges its ID token there for an ID-JAG (RFC 8693)
 * and presents it to the tenant's authorization server (JWT-bearer grant), then lists and calls
 * tools — through two gateways and two auth replicas, with no browser at the MCP side. Every
 * refusal answers `invalid_grant` naming the check, and is audited and counted.
 */
import {
  Client,
  CrossAppAccessProvider,
  StreamableHTTPClientTransport,
  exchangeJwtAuthGrant,
  requestJwtAuthorizationGrant,
} from '@modelcontextprotocol/client';
import { ENTERPRISE_MANAGED_AUTHORIZATION } from '@switchboard/catalog';
import { decodeJwt, token } from '@switchboard/testing';
import { Client as PgClient } from 'pg';
import { DATABASE_URL } from './support/auth-harness';
import { startEnterpriseStand, type EnterpriseStand } from './support/enterprise-stand';
import { IDP_CLIENT, idpClient, signInAt, startTestIdp, type TestIdp } from './support/test-idp';

const TENANT = 'acme';
const BASE_AUTH = { scopes: ['mcp:tools', 'mcp:admin'], defaultScopes: ['mcp:tools'] };
const SUBJECT = /^acme\|oidc-[0-9a-f]{16}\|alice$/;

let stand: EnterpriseStand;
let stranger: TestIdp;
let client: { id: string; secret: string };
let otherClient: { id: string; secret: string };

beforeAll(async () => {
  stand = await startEnterpriseStand(TENANT, BASE_AUTH);
  stranger = await startTestIdp([idpClient()], { idJag: true });
  const { idp, issuer, mcpUrl } = stand;
  const trust = (allowedClients: string[]) =>
    stand.setAuth({
      ...BASE_AUTH,
      enterpriseIdps: [
        {
          issuer: idp.issuer,
          jwksUri: `${idp.issuer}/jwks`,
          allowedClients,
          groupScopes: { engineering: ['mcp:tools'], admins: ['mcp:tools', 'mcp:admin'] },
        },
      ],
    });
  // As an admin does it: trust the IdP (the tenant then accepts JWT-bearer clients), register the client, allow it.
  trust(['not-yet-registered']);
  client = await stand.registerClient();
  otherClient = await stand.registerClient();
  trust([client.id]);
  await stand.startGateways();
  idp.groups = { alice: ['engineering'], bob: ['marketing'] };
  idp.idJagPolicy[IDP_CLIENT.id] = {
    targets: { [issuer]: { resource: mcpUrl, clientId: client.id }, 'https://other-as.example': { resource: mcpUrl, clientId: client.id } },
  };
  stranger.groups = { alice: ['engineering'] };
  stranger.idJagPolicy[IDP_CLIENT.id] = { targets: { [issuer]: { resource: mcpUrl, clientId: client.id } } };
}, 60_000);

afterAll(async () => {
  await stand?.close();
  await stranger?.close();
});

/** An ID-JAG from `idp` for `user`, asked through the SDK's token-exchange helper. */
async function idJag(o: { user?: string; idp?: TestIdp; audience?: string; scope?: string } = {}): Promise<string> {
  const idp = o.idp ?? stand.idp;
  const idToken = await signInAt(idp, o.user ?? 'alice');
  const r = await requestJwtAuthorizationGrant({
    tokenEndpoint: `${idp.issuer}/token`,
    audience: o.audience ?? stand.issuer,
    resource: stand.mcpUrl,
    idToken,
    clientId: IDP_CLIENT.id,
    clientSecret: IDP_CLIENT.secret,
    ...(o.scope ? { scope: o.scope } : {}),
  });
  return r.jwtAuthGrant;
}

/** Presents an assertion at one replica's token endpoint as `as` (client_secret_basic). */
function present(assertion: string, o: { replica?: 0 | 1; as?: { id: string; secret: string }; extra?: Record<string, string> } = {}) {
  const as = o.as ?? client;
  const base = `${stand.replicas[o.replica ?? 0].baseUrl}/t/${TENANT}`;
  const basic = Buffer.from(`${encodeURIComponent(as.id)}:${encodeURIComponent(as.secret)}`).toString('base64');
  return token(
    base,
    { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, ...o.extra },
    { authorization: `Basic ${basic}` },
  );
}

async function connectWithToken(gateway: 0 | 1, accessToken: string, modern = false): Promise<Client> {
  const c = new Client({ name: 'ema-e2e', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await c.connect(
    new StreamableHTTPClientTransport(new URL(stand.gateways[gateway].mcpUrl(TENANT)), {
      authProvider: { token: async () => accessToken },
    }),
  );
  return c;
}

describe('enterprise-managed authorization (ID-JAG) at a protected tenant', () => {
  it('advertises the JWT-bearer grant and the id-jag profile, and no offline_access (SEP-2207), on both replicas', async () => {
    for (const r of stand.replicas) {
      const meta = (await (await fetch(`${r.baseUrl}/.well-known/oauth-authorization-server/t/${TENANT}`)).json()) as Record<
        string,
        unknown
      >;
      expect(meta.issuer).toBe(stand.issuer);
      expect(meta.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer']),
      );
      expect(meta.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
      expect(meta.scopes_supported).not.toContain('offline_access');
    }
  });

  it('lets the SDK v2 cross-app-access client list and call tools with an ID-JAG, no browser, and declares the extension in server/discover', async () => {
    const idToken = await stand.idToken('alice');
    const provider = new CrossAppAccessProvider({
      assertion: async (ctx) =>
        (
          await requestJwtAuthorizationGrant({
            tokenEndpoint: `${stand.idp.issuer}/token`,
            audience: ctx.authorizationServerUrl,
            resource: ctx.resourceUrl,
            idToken,
            clientId: IDP_CLIENT.id,
            clientSecret: IDP_CLIENT.secret,
            fetchFn: ctx.fetchFn,
          })
        ).jwtAuthGrant,
      clientId: client.id,
      clientSecret: client.secret,
      expectedIssuer: stand.issuer,
    });
    const mcp = new Client({ name: 'ema-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(stand.gateways[0].mcpUrl(TENANT)), { authProvider: provider }));
    expect((await mcp.listTools()).tools.map((t) => t.name)).toContain('echo');
    const echo = await mcp.callTool({ name: 'echo', arguments: { text: 'enterprise' } });
    expect(JSON.stringify(echo.content)).toContain('enterprise');
    await mcp.close();
    // A modern-era client (server/discover) with that token learns the tenant takes ID-JAGs.
    const modern = await connectWithToken(0, provider.tokens()!.access_token, true);
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modern.getDiscoverResult()?.capabilities.extensions).toMatchObject({ [ENTERPRISE_MANAGED_AUTHORIZATION]: {} });
    await modern.close();
    const claims = decodeJwt(provider.tokens()!.access_token).payload;
    expect(claims).toMatchObject({
      sub: expect.stringMatching(SUBJECT),
      aud: stand.mcpUrl,
      iss: stand.issuer,
      client_id: client.id,
      scope: 'mcp:tools',
      tid: TENANT,
    });
    expect(decodeJwt(provider.tokens()!.access_token).header.typ).toBe('at+jwt');
    expect(provider.tokens()!.refresh_token).toBeUndefined();
  });

  it('issues at the second replica and serves through the second gateway; the jti is spent for both replicas', async () => {
    const jag = await idJag();
    const tokens = await exchangeJwtAuthGrant({
      tokenEndpoint: `${stand.replicas[1].baseUrl}/t/${TENANT}/token`,
      jwtAuthGrant: jag,
      clientId: client.id,
      clientSecret: client.secret,
    });
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ sub: expect.stringMatching(SUBJECT), aud: stand.mcpUrl });
    const mcp = await connectWithToken(1, tokens.access_token);
    const echo = await mcp.callTool({ name: 'echo', arguments: { text: 'second gateway' } });
    expect(JSON.stringify(echo.content)).toContain('second gateway');
    await mcp.close();
    const replay = await present(jag, { replica: 0 });
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/^jti: /) });
  });

  it("grants only the scopes of the user's groups, narrowed to what was asked", async () => {
    stand.idp.groups.carol = ['admins'];
    const wide = await present(await idJag({ user: 'carol' }), { extra: { scope: 'mcp:tools mcp:admin' } });
    expect(wide.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp:tools mcp:admin' });
    const narrow = await present(await idJag({ user: 'alice' }), { extra: { scope: 'mcp:tools mcp:admin' } });
    expect(narrow.body).toMatchObject({ scope: 'mcp:tools' });
  });
});

describe('refusals: invalid_grant naming the check, audited and counted', () => {
  const refusedWith = async (res: Promise<{ status: number; body: Record<string, unknown> }>, check: string) => {
    const r = await res;
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(new RegExp(`^${check}: `)) });
  };
  const withPolicy = async <T>(change: () => () => void, run: () => Promise<T>): Promise<T> => {
    const restore = change();
    try {
      return await run();
    } finally {
      restore();
    }
  };

  it('wrong audience: an ID-JAG for another authorization server', async () => {
    await refusedWith(present(await idJag({ audience: 'https://other-as.example' })), 'aud');
  });

  it('wrong resource: an ID-JAG naming another MCP server, and a request naming one', async () => {
    const target = stand.idp.idJagPolicy[IDP_CLIENT.id]!.targets[stand.issuer]!;
    const idToken = await stand.idToken('alice');
    const real = await withPolicy(
      () => {
        const saved = target.resource;
        target.resource = 'http://127.0.0.1:1/t/other/mcp';
        return () => void (target.resource = saved);
      },
      async () =>
        (
          await requestJwtAuthorizationGrant({
            tokenEndpoint: `${stand.idp.issuer}/token`,
            audience: stand.issuer,
            resource: 'http://127.0.0.1:1/t/other/mcp',
            idToken,
            clientId: IDP_CLIENT.id,
            clientSecret: IDP_CLIENT.secret,
          })
        ).jwtAuthGrant,
    );
    await refusedWith(present(real), 'resource');
    await refusedWith(present(await idJag(), { extra: { resource: 'http://127.0.0.1:1/t/other/mcp' } }), 'resource');
  });

  it('expired: an ID-JAG past its exp', async () => {
    const policy = stand.idp.idJagPolicy[IDP_CLIENT.id]!;
    const jag = await withPolicy(
      () => ((policy.backdateS = 1000), () => void delete policy.backdateS),
      () => idJag(),
    );
    await refusedWith(present(jag), 'exp');
  });

  it('replayed: the same ID-JAG twice', async () => {
    const jag = await idJag();
    expect((await present(jag)).status).toBe(200);
    await refusedWith(present(jag), 'jti');
  });

  it('unknown issuer: an ID-JAG of an IdP the tenant does not trust', async () => {
    await refusedWith(present(await idJag({ idp: stranger })), 'iss');
  });

  it('client not allowed: a registered client the IdP entry does not list', async () => {
    const target = stand.idp.idJagPolicy[IDP_CLIENT.id]!.targets[stand.issuer]!;
    const jag = await withPolicy(
      () => ((target.clientId = otherClient.id), () => void (target.clientId = client.id)),
      () => idJag(),
    );
    await refusedWith(present(jag, { as: otherClient }), 'client_not_allowed');
  });

  it('client_id: an ID-JAG issued for one client presented by another', async () => {
    await refusedWith(present(await idJag(), { as: otherClient }), 'client_id');
  });

  it('user not in an allowed group', async () => {
    await refusedWith(present(await idJag({ user: 'bob' })), 'group');
  });

  it('records every refusal in the audit table with its check, and counts it', async () => {
    const pg = new PgClient({ connectionString: DATABASE_URL });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ check_name: string; outcome: string }>(
        `SELECT check_name, outcome FROM "${stand.replicas[0].schema}".id_jag_audit WHERE tenant_id = $1`,
        [TENANT],
      );
      const refused = new Set(rows.filter((r) => r.outcome === 'refused').map((r) => r.check_name));
      for (const check of ['aud', 'resource', 'exp', 'jti', 'iss', 'client_not_allowed', 'client_id', 'group'])
        expect(refused).toContain(check);
      expect(rows.some((r) => r.outcome === 'granted')).toBe(true);
    } finally {
      await pg.end();
    }
    const metrics = await (await fetch(`${stand.replicas[0].baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/auth_id_jag_grants_total\{[^}]*check="group"[^}]*\} [1-9]/);
  });
});
