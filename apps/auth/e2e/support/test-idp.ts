import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Configuration, Provider } from 'oidc-provider';
import { generateKeyPairSync } from 'node:crypto';
import { mainRealm, oidc } from '../../src/oidc/native-modules';
import { freePort } from './auth-harness';
import { approve, pkcePair, TestBrowser, token } from '@switchboard/testing';
import { registerIdJagExchange, TOKEN_EXCHANGE_GRANT, type IdJagExchangeState } from './id-jag-exchange';

export interface TestIdp extends IdJagExchangeState {
  issuer: string;
  /** Sign-ins the IdP performed (its `sub` values). */
  logins: string[];
  /** The user the next sign-in auto-approves as. */
  user: string;
  /** Successful token-endpoint grants, in order (`authorization_code`, `refresh_token`, …) with the account they were for. */
  grants: Array<{ grantType: string; accountId?: string }>;
  /** Access token value → the account it was issued to (opaque tokens: the value is the token id). */
  accessTokens: Map<string, string>;
  close(): Promise<void>;
}

export interface TestIdpOptions {
  /** Access-token lifetime in seconds (oidc-provider's default otherwise). */
  accessTokenTtl?: number;
  /** Issue a refresh token whenever the client may use the grant (no `offline_access` + consent dance), rotated on every use. */
  refreshTokens?: boolean;
  /** Group names per account, served as the `groups` claim under the `groups` scope (console SSO tests). */
  groups?: (sub: string) => string[];
  /** Called with the provider before it serves (e.g. to register extra grant types). */
  configure?: (provider: Provider) => void;
  /** Issue ID-JAGs by RFC 8693 token exchange (Enterprise-Managed Authorization) under `idJagPolicy`. */
  idJag?: boolean;
}

/**
 * A second, real oidc-provider playing a tenant's enterprise IdP. Its interactions approve
 * automatically (login as `user`, consent to everything asked), like an SSO session would.
 */
export async function startTestIdp(
  clients: Array<{ client_id: string; client_secret?: string; redirect_uris: string[]; grant_types?: string[] }>,
  options: TestIdpOptions = {},
): Promise<TestIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const state: TestIdp = {
    issuer,
    logins: [],
    user: 'alice',
    grants: [],
    accessTokens: new Map(),
    idJagPolicy: {},
    groups: {},
    issuedIdJags: [],
    close: async () => undefined,
  };
  const config = {
    clients: clients.map((c) => ({
      token_endpoint_auth_method: c.client_secret ? 'client_secret_post' : 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
      ...c,
    })),
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'idp-1', alg: 'ES256', use: 'sig' }] },
    cookies: { keys: ['idp-cookie-key-for-tests'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false }, resourceIndicators: { enabled: false } },
    scopes: ['openid', 'email', 'profile', 'offline_access', ...(options.groups ? ['groups'] : [])],
    claims: { openid: ['sub'], email: ['email'], ...(options.groups ? { groups: ['groups'] } : {}) },
    findAccount: async (_ctx: unknown, sub: string) =>
      mainRealm({
        accountId: sub,
        claims: async () => mainRealm({ sub, email: `${sub}@idp.test`, ...(options.groups ? { groups: options.groups(sub) } : {}) }),
      }),
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
    ...(options.accessTokenTtl !== undefined ? { ttl: { AccessToken: options.accessTokenTtl } } : {}),
    ...(options.refreshTokens
      ? {
          issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
            client.grantTypeAllowed('refresh_token'),
          rotateRefreshToken: true,
        }
      : {}),
  };
  const provider = new oidc.default(issuer, mainRealm(config) as unknown as Configuration);
  if (options.idJag) registerIdJagExchange(provider, state, { privateKey, publicKey, kid: 'idp-1' });
  provider.on('access_token.saved', (token: { jti: string; accountId?: string }) => {
    if (token.accountId) state.accessTokens.set(token.jti, token.accountId);
  });
  provider.on('grant.success', (ctx: { oidc: { params?: { grant_type?: unknown }; entities: { Account?: { accountId: string } } } }) => {
    state.grants.push({ grantType: String(ctx.oidc.params?.grant_type), accountId: ctx.oidc.entities.Account?.accountId });
  });
  options.configure?.(provider);
  const callback = provider.callback();
  const server: Server = createServer((req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    finishInteraction(provider, state, req, res).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}

/** Finishes an interaction as an SSO session would: login as `state.user`, then consent to every scope and claim asked. */
async function finishInteraction(provider: Provider, state: TestIdp, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    state.logins.push(state.user);
    return provider.interactionFinished(req, res, mainRealm({ login: { accountId: state.user } }), { mergeWithLastSubmission: false });
  }
  const grant = new provider.Grant({ accountId: details.session?.accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details.missingOIDCScope as string[] | undefined;
  if (missing) grant.addOIDCScope(missing.join(' '));
  const missingClaims = details.prompt.details.missingOIDCClaims as string[] | undefined;
  if (missingClaims) grant.addOIDCClaims(missingClaims);
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, mainRealm({ consent: { grantId } }), { mergeWithLastSubmission: true });
}

/** The MCP client's id and secret at the enterprise IdP (SSO + token exchange). */
export const IDP_CLIENT = { id: 'mcp-app', secret: 'mcp-app-idp-secret-0123456789' } as const;
const IDP_REDIRECT = 'http://127.0.0.1:9/sso-callback';

/** Signs `user` in at `idp` as the MCP client (authorization code + PKCE, auto-approved) and returns the ID token. */
export async function signInAt(idp: TestIdp, user: string): Promise<string> {
  idp.user = user;
  const { verifier, challenge } = pkcePair();
  const url = `${idp.issuer}/auth?${new URLSearchParams({ response_type: 'code', client_id: IDP_CLIENT.id, redirect_uri: IDP_REDIRECT, scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`;
  const back = await approve(new TestBrowser(), url, IDP_REDIRECT);
  const form = {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code') ?? '',
    redirect_uri: IDP_REDIRECT,
    code_verifier: verifier,
    client_id: IDP_CLIENT.id,
    client_secret: IDP_CLIENT.secret,
  };
  const t = await token(idp.issuer, form);
  if (t.status !== 200) throw new Error(`IdP sign-in failed: ${t.status} ${JSON.stringify(t.body)}`);
  return String(t.body.id_token);
}

/** The MCP client as the enterprise IdP knows it (SSO and token exchange). */
export function idpClient(): { client_id: string; client_secret: string; redirect_uris: string[]; grant_types: string[] } {
  return {
    client_id: IDP_CLIENT.id,
    client_secret: IDP_CLIENT.secret,
    redirect_uris: [IDP_REDIRECT],
    grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT],
  };
}
