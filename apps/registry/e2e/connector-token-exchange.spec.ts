import { randomBytes } from 'node:crypto';
import { decodeJwt, obtainTokens, type TestBrowser } from '@switchboard/testing';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import { registerTokenExchange, TOKEN_EXCHANGE_GRANT, type TokenExchangePolicy } from '../../auth/e2e/support/token-exchange-grant';
import { api, until } from './support/harness';
import { startConnectorStack, type ConnectorStack, type ToolAnswer } from './support/connector-stack';

const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
/** The user the connector's AS refuses to exchange for (its policy), with the description it answers. */
const REFUSED_USER = 'mallory';
const REFUSAL = 'mallory is not allowed to use the CRM';

/**
 * Issue 44 item 3 acceptance, on the real stack (built registry, auth and gateway; Redis;
 * Postgres; an oidc-provider as the connector's own AS implementing RFC 8693 through
 * registerGrantType; an SDK-built upstream that records bearers): a connector with a
 * `token_exchange` grant gets each user's own upstream token from the user's identity (the
 * tenant AS's assertion, never the client's token), a refused exchange answers a coded tool
 * error naming the connector and the reason, and a linked account is the fallback.
 */
describe('connector tokens from enterprise identity (RFC 8693 token exchange) end to end', () => {
  let stack: ConnectorStack;
  let connectorAs: TestIdp;
  const connectorSecret = `crm-secret-${randomBytes(6).toString('hex')}`;
  const policy: TokenExchangePolicy = {
    trustedIssuer: '',
    jwksUrl: '',
    seen: [],
    account: (subject) => {
      const user = subject.split('|').pop() ?? '';
      return user === REFUSED_USER ? REFUSAL : { accountId: `${user}-ent` };
    },
  };
  const users: Record<string, { token: string; browser: TestBrowser }> = {};
  /** The upstream bearer a successful call carried (echoed by the upstream). */
  const seenBearer = (r: ToolAnswer): string => {
    const text = r.content[0]?.text ?? '';
    expect([text, r.isError]).toEqual([expect.stringMatching(/^authorization=Bearer \S+$/), undefined]);
    return text.slice('authorization=Bearer '.length);
  };

  beforeAll(async () => {
    stack = await startConnectorStack(async (authUrl) => {
      policy.trustedIssuer = `${authUrl}/t/acme`;
      policy.jwksUrl = `${authUrl}/t/acme/jwks`;
      connectorAs = await startTestIdp(
        [
          {
            client_id: 'switchboard-crm',
            client_secret: connectorSecret,
            redirect_uris: [`${authUrl}/t/acme/connectors/callback`],
            grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT],
          },
        ],
        { configure: (provider) => registerTokenExchange(provider, policy) },
      );
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await connectorAs?.close();
  });
  it('refuses a malformed grant naming the field, stores a valid one and shows it without secrets', async () => {
    expect(
      (
        await api(stack.registry.url, stack.key, 'POST', '/v1/servers', {
          id: 'crm',
          name: 'CRM',
          url: stack.upstream.url,
          auth: { mode: 'oauth_user' },
        })
      ).status,
    ).toBe(201);
    const base = { issuer: connectorAs.issuer, clientId: 'switchboard-crm', clientSecret: connectorSecret, scopes: ['openid'] };
    const cases: Array<[unknown, string]> = [
      [{ kind: 'token_exchange', resource: 'not a url' }, 'body.grant.resource'],
      [{ kind: 'cross_app', idpClientId: 'x' }, 'body.grant.idpIssuer'],
      [{ kind: 'saml' }, 'body.grant.kind'],
    ];
    for (const [grant, field] of cases) {
      const bad = await api(stack.registry.url, stack.key, 'PUT', '/v1/servers/crm/connector', { ...base, grant });
      expect([bad.status, bad.body.error?.code, bad.body.error?.field]).toEqual([400, 'VALIDATION', field]);
    }
    // The connector's AS does not offer JWT-bearer: cross-app access could never work there.
    const crossApp = await api(stack.registry.url, stack.key, 'PUT', '/v1/servers/crm/connector', {
      ...base,
      grant: { kind: 'cross_app', idpIssuer: connectorAs.issuer, idpClientId: 'x' },
    });
    expect([crossApp.status, crossApp.body.error?.field]).toEqual([400, 'body.grant.kind']);
    expect(String(crossApp.body.error?.message)).toContain('jwt-bearer');

    const set = await api(stack.registry.url, stack.key, 'PUT', '/v1/servers/crm/connector', {
      ...base,
      grant: { kind: 'token_exchange', resource: stack.upstream.url },
    });
    expect(set.status).toBe(200);
    expect((set.body.connectors as Record<string, unknown>).crm).toMatchObject({
      issuer: connectorAs.issuer,
      clientSecretSet: true,
      grant: { kind: 'token_exchange', resource: stack.upstream.url },
    });
    // Left out keeps the grant (like the secret).
    const again = await api(stack.registry.url, stack.key, 'PUT', '/v1/servers/crm/connector', base);
    expect((again.body.connectors as Record<string, { grant?: unknown }>).crm?.grant).toEqual({
      kind: 'token_exchange',
      resource: stack.upstream.url,
    });
  }, 60_000);

  it("discovers the server with the admin's linked account and publishes it on a protected tenant", async () => {
    await stack.publishCrm(connectorAs);
  }, 90_000);

  it("calls with each user's own token from token exchange, never the client's, with no link", async () => {
    for (const user of ['carol', 'dave', REFUSED_USER]) {
      const t = await obtainTokens(`${stack.authUrl}/t/acme`, { user, redirectUri: CLAUDE_CALLBACK });
      expect(t.status).toBe(200);
      users[user] = { token: String(t.body.access_token), browser: t.browser };
    }
    const published = await until(
      'published on the gateway',
      async () => {
        const r = await stack.callWhoami(users.carol!.token);
        return r.isError ? undefined : r;
      },
      15_000,
    );
    expect(connectorAs.accessTokens.get(seenBearer(published))).toBe('carol-ent');
    for (const user of ['carol', 'dave']) {
      for (let i = 0; i < 3; i++)
        expect(connectorAs.accessTokens.get(seenBearer(await stack.callWhoami(users[user]!.token)))).toBe(`${user}-ent`);
    }
    // One exchange per user (then the cache), each with an assertion for that user from the tenant's AS.
    const subjects = policy.seen.map((t) => decodeJwt(t).payload);
    expect(subjects.map((p) => String(p.sub).split('|').pop())).toEqual(['carol', 'dave']);
    for (const p of subjects) expect(p).toMatchObject({ iss: `${stack.authUrl}/t/acme`, aud: connectorAs.issuer, tid: 'acme' });
    // The clients' own tokens went neither to the upstream nor to the connector's AS.
    const outbound = [...stack.upstream.bearers, ...policy.seen].join('\n');
    for (const { token } of Object.values(users)) expect(outbound).not.toContain(token);
  }, 90_000);

  it('answers a refused exchange with a coded tool error naming the connector and the reason; a linked account is the fallback', async () => {
    const before = stack.upstream.bearers.length;
    const refused = await stack.callWhoami(users[REFUSED_USER]!.token);
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['switchboard/error']).toMatchObject({ code: 'GW_CONNECTOR_EXCHANGE_REFUSED', upstream: 'crm' });
    const text = refused.content[0]?.text ?? '';
    expect(text.startsWith('GW_CONNECTOR_EXCHANGE_REFUSED')).toBe(true);
    expect(text).toContain(
      `Upstream server crm: the connector\u2019s authorization server refused the request (invalid_grant: ${REFUSAL})`,
    );
    // Nothing reached the upstream as this user (other requests, such as the registry's discovery, may).
    const added = stack.upstream.bearers.slice(before).map((b) => (b ?? '').replace(/^Bearer /, ''));
    expect(added).not.toContain(users[REFUSED_USER]!.token);
    expect(added.map((b) => connectorAs.accessTokens.get(b)).filter((who) => who?.startsWith(`${REFUSED_USER}-`))).toEqual([]);

    const linkUrl = /(http:\/\/\S+\/connectors\/crm\/link\?ticket=\S+)/.exec(text)?.[1];
    expect(linkUrl).toBeDefined();
    await stack.link(connectorAs, String(linkUrl), `${REFUSED_USER}-up`, users[REFUSED_USER]!.browser);
    expect(connectorAs.accessTokens.get(seenBearer(await stack.callWhoami(users[REFUSED_USER]!.token)))).toBe(`${REFUSED_USER}-up`);
    // Counted by kind and outcome (no tenant or user label: bounded).
    const metrics = await (await fetch(`${stack.authUrl}/metrics`)).text();
    for (const outcome of ['ok', 'cached', 'refused'])
      expect(metrics).toMatch(
        new RegExp(`auth_connector_grants_total\\{[^}]*grant="token_exchange"[^}]*outcome="${outcome}"[^}]*\\} [1-9]`),
      );
  }, 60_000);
});
