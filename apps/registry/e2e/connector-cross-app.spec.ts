import { randomBytes } from 'node:crypto';
import { decodeJwt, obtainTokens } from '@switchboard/testing';
import { startTestIdp, type TestIdp } from '../../auth/e2e/support/test-idp';
import {
  idJagIssuer,
  JWT_BEARER_GRANT,
  registerIdJagBearer,
  registerIdJagExchange,
  TOKEN_EXCHANGE_GRANT,
  type TokenExchangePolicy,
} from '../../auth/e2e/support/token-exchange-grant';
import { api, until } from './support/harness';
import { startConnectorStack, type ConnectorStack, type ToolAnswer } from './support/connector-stack';

const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
const REFUSED_USER = 'mallory';
const REFUSAL = 'mallory is in no group allowed to use the CRM';

/**
 * Issue 44 item 3, cross-app access on the real stack: the connector obtains an ID-JAG for the
 * calling user from the enterprise IdP (RFC 8693, requested_token_type id-jag; an oidc-provider
 * with registerGrantType) and redeems it with the JWT-bearer grant at the connector's own AS (a
 * second oidc-provider): each user's call carries their own token; the IdP's refusal reaches the
 * caller as a coded tool error naming the connector and who refused.
 */
describe('connector tokens by cross-app access (ID-JAG from the enterprise IdP, then JWT-bearer) end to end', () => {
  let stack: ConnectorStack;
  let enterpriseIdp: TestIdp;
  let connectorAs: TestIdp;
  const signer = idJagIssuer();
  const connectorSecret = `crm-secret-${randomBytes(6).toString('hex')}`;
  const idpSecret = `xaa-secret-${randomBytes(6).toString('hex')}`;
  const idpPolicy: TokenExchangePolicy = {
    trustedIssuer: '',
    jwksUrl: '',
    seen: [],
    account: (subject) => {
      const user = subject.split('|').pop() ?? '';
      return user === REFUSED_USER ? REFUSAL : { accountId: user };
    },
  };
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startConnectorStack(async (authUrl) => {
      idpPolicy.trustedIssuer = `${authUrl}/t/acme`;
      idpPolicy.jwksUrl = `${authUrl}/t/acme/jwks`;
      enterpriseIdp = await startTestIdp(
        [
          {
            client_id: 'switchboard-xaa',
            client_secret: idpSecret,
            redirect_uris: ['https://unused.example/cb'],
            grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT],
          },
        ],
        { configure: (provider) => registerIdJagExchange(provider, idpPolicy, signer, 'switchboard-crm') },
      );
      connectorAs = await startTestIdp(
        [
          {
            client_id: 'switchboard-crm',
            client_secret: connectorSecret,
            redirect_uris: [`${authUrl}/t/acme/connectors/callback`],
            grant_types: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT],
          },
        ],
        { configure: (provider) => registerIdJagBearer(provider, enterpriseIdp.issuer, signer) },
      );
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all([enterpriseIdp?.close(), connectorAs?.close()]);
  });

  it('stores a cross-app grant (IdP secret sealed, never shown) and publishes the connector', async () => {
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
    const grant = {
      kind: 'cross_app',
      idpIssuer: enterpriseIdp.issuer,
      idpClientId: 'switchboard-xaa',
      idpClientSecret: idpSecret,
      resource: stack.upstream.url,
    };
    const set = await api(stack.registry.url, stack.key, 'PUT', '/v1/servers/crm/connector', {
      issuer: connectorAs.issuer,
      clientId: 'switchboard-crm',
      clientSecret: connectorSecret,
      scopes: ['openid'],
      grant,
    });
    expect(set.status).toBe(200);
    const view = await api(stack.registry.url, stack.key, 'GET', '/v1/tenant/auth');
    expect((view.body.connectors as Record<string, { grant?: unknown }>).crm?.grant).toEqual({
      kind: 'cross_app',
      idpIssuer: enterpriseIdp.issuer,
      idpClientId: 'switchboard-xaa',
      idpClientSecretSet: true,
      resource: stack.upstream.url,
    });
    expect(JSON.stringify(view.body)).not.toContain(idpSecret);
    await stack.publishCrm(connectorAs);
  }, 120_000);

  it("calls with each user's own token from an ID-JAG, never the client's", async () => {
    for (const user of ['carol', 'dave', REFUSED_USER]) {
      const t = await obtainTokens(`${stack.authUrl}/t/acme`, { user, redirectUri: CLAUDE_CALLBACK });
      expect(t.status).toBe(200);
      tokens[user] = String(t.body.access_token);
    }
    const first = await until(
      'published on the gateway',
      async () => {
        const r = await stack.callWhoami(tokens.carol!);
        return r.isError ? undefined : r;
      },
      15_000,
    );
    const bearerOf = (r: ToolAnswer) => {
      expect([r.content[0]?.text, r.isError]).toEqual([expect.stringMatching(/^authorization=Bearer \S+$/), undefined]);
      return (r.content[0]?.text ?? '').slice('authorization=Bearer '.length);
    };
    expect(connectorAs.accessTokens.get(bearerOf(first))).toBe('carol-xaa');
    expect(connectorAs.accessTokens.get(bearerOf(await stack.callWhoami(tokens.dave!)))).toBe('dave-xaa');
    // Each ID-JAG names the user, the connector's AS, its client there and the upstream resource.
    const jags = signer.issued.map((j) => decodeJwt(j));
    expect(jags.map((j) => j.payload.sub)).toEqual(['carol', 'dave']);
    for (const j of jags) {
      expect(j.header.typ).toBe('oauth-id-jag+jwt');
      expect(j.payload).toMatchObject({
        iss: enterpriseIdp.issuer,
        aud: connectorAs.issuer,
        client_id: 'switchboard-crm',
        resource: stack.upstream.url,
      });
    }
    for (const t of idpPolicy.seen)
      expect(decodeJwt(t).payload).toMatchObject({ iss: `${stack.authUrl}/t/acme`, aud: enterpriseIdp.issuer });
    const outbound = [...stack.upstream.bearers, ...idpPolicy.seen, ...signer.issued].join('\n');
    for (const token of Object.values(tokens)) expect(outbound).not.toContain(token);
  }, 90_000);

  it("answers the enterprise IdP's refusal with a coded tool error naming the connector and who refused", async () => {
    const before = stack.upstream.bearers.length;
    const refused = await stack.callWhoami(tokens[REFUSED_USER]!);
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['switchboard/error']).toMatchObject({ code: 'GW_CONNECTOR_EXCHANGE_REFUSED', upstream: 'crm' });
    expect(refused.content[0]?.text).toContain(`Upstream server crm: the enterprise IdP refused the request (invalid_grant: ${REFUSAL})`);
    // Nothing reached the upstream as this user: neither the client's own token nor one issued for
    // them. (Other requests, such as the registry's discovery, may reach it meanwhile.)
    const added = stack.upstream.bearers.slice(before).map((b) => (b ?? '').replace(/^Bearer /, ''));
    expect(added).not.toContain(tokens[REFUSED_USER]);
    expect(added.map((b) => connectorAs.accessTokens.get(b))).not.toContain(`${REFUSED_USER}-xaa`);
  }, 60_000);
});
