import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Provider } from 'oidc-provider';
import { createLocalJWKSet, createRemoteJWKSet, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { oidc } from '../../src/oidc/native-modules';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_JAG_TYP = 'oauth-id-jag+jwt';

export interface TokenExchangePolicy {
  /** The issuer whose assertions are trusted (the tenant's AS) and its JWKS. */
  trustedIssuer: string;
  jwksUrl: string;
  /** The account an assertion's subject maps to at this server; a string refuses the exchange with that description. */
  account(subject: string): { accountId: string } | string;
  /** Every subject token presented, in order (what went out of the platform). */
  seen: string[];
}

interface GrantContext {
  oidc: { params?: Record<string, unknown>; client?: unknown; entity(kind: string, value: unknown): void };
  body?: unknown;
}

type Client = InstanceType<Provider['Client']>;

const refuse = (description: string) => new oidc.errors.CustomOIDCProviderError('invalid_grant', description);

/** Verifies the tenant AS's identity assertion (ID-token typed, for `audience`) and maps its subject, or refuses. */
async function trustedSubject(
  policy: TokenExchangePolicy,
  jwks: ReturnType<typeof createRemoteJWKSet>,
  params: Record<string, unknown>,
  audience: string,
): Promise<string> {
  const subjectToken = String(params.subject_token ?? '');
  policy.seen.push(subjectToken);
  if (params.subject_token_type !== ID_TOKEN_TYPE) throw refuse(`subject_token_type must be ${ID_TOKEN_TYPE}`);
  let sub: string;
  try {
    ({
      payload: { sub = '' },
    } = await jwtVerify(subjectToken, jwks, { issuer: policy.trustedIssuer, audience, algorithms: ['ES256'] }));
  } catch (err) {
    throw refuse(`subject_token is not a valid assertion of ${policy.trustedIssuer}: ${(err as Error).message}`);
  }
  const mapped = policy.account(sub);
  if (typeof mapped === 'string') throw refuse(mapped);
  return mapped.accountId;
}

/** An opaque access token of `accountId` for the authenticated client (recorded by the test IdP's `accessTokens`). */
async function issueAccessToken(provider: Provider, ctx: GrantContext, accountId: string, gty: string): Promise<void> {
  const client = ctx.oidc.client as Client;
  // A grant per request, as a consented sign-in would leave (the token names it).
  const grantId = await new provider.Grant({ accountId, clientId: client.clientId }).save();
  const scope = ctx.oidc.params?.scope;
  const token = new provider.AccessToken({ accountId, client, grantId, gty, ...(typeof scope === 'string' ? { scope } : {}) });
  ctx.oidc.entity('AccessToken', token);
  const value = await token.save();
  ctx.body = { access_token: value, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: token.expiration };
}

/**
 * RFC 8693 token exchange at a test oidc-provider (registerGrantType), playing a connector's
 * own AS that trusts the tenant's identity assertions: the subject token must be an ID-token-
 * typed JWT signed by `trustedIssuer`, for this AS; the answer is an opaque access token of the
 * mapped account.
 */
export function registerTokenExchange(provider: Provider, policy: TokenExchangePolicy): void {
  const jwks = createRemoteJWKSet(new URL(policy.jwksUrl));
  const handler = async (ctx: GrantContext) => {
    const accountId = await trustedSubject(policy, jwks, ctx.oidc.params ?? {}, provider.issuer);
    await issueAccessToken(provider, ctx, accountId, 'token_exchange');
  };
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler as never, [
    'subject_token',
    'subject_token_type',
    'requested_token_type',
    'audience',
    'resource',
    'scope',
  ]);
}

/** The enterprise IdP's ID-JAG signing key (its public half is what the upstream AS trusts). */
export interface IdJagIssuer {
  privateJwk: JWK;
  publicJwk: JWK;
  /** ID-JAGs issued, in order. */
  issued: string[];
}

export function idJagIssuer(): IdJagIssuer {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateJwk: { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: 'jag-1', alg: 'ES256' },
    publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid: 'jag-1', alg: 'ES256' },
    issued: [],
  };
}

/**
 * The enterprise IdP's half of cross-app access: RFC 8693 with `requested_token_type` id-jag,
 * answering an ID-JAG (typ `oauth-id-jag+jwt`; iss, sub, aud = the requested `audience`,
 * client_id = `clientAtAudience`, resource, jti, short exp) for a trusted assertion.
 */
export function registerIdJagExchange(
  provider: Provider,
  policy: TokenExchangePolicy,
  signer: IdJagIssuer,
  clientAtAudience: string,
): void {
  const jwks = createRemoteJWKSet(new URL(policy.jwksUrl));
  const handler = async (ctx: GrantContext) => {
    const params = ctx.oidc.params ?? {};
    const sub = await trustedSubject(policy, jwks, params, provider.issuer);
    if (params.requested_token_type !== ID_JAG_TYPE) throw refuse(`requested_token_type must be ${ID_JAG_TYPE}`);
    if (typeof params.audience !== 'string') throw refuse('audience is required');
    const key = await importJWK(signer.privateJwk, 'ES256');
    const jag = await new SignJWT({
      client_id: clientAtAudience,
      ...(typeof params.resource === 'string' ? { resource: params.resource } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'jag-1', typ: ID_JAG_TYP })
      .setIssuer(provider.issuer)
      .setSubject(sub)
      .setAudience(params.audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti(randomUUID())
      .sign(key);
    signer.issued.push(jag);
    ctx.body = { access_token: jag, issued_token_type: ID_JAG_TYPE, token_type: 'N_A', expires_in: 300 };
  };
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler as never, [
    'subject_token',
    'subject_token_type',
    'requested_token_type',
    'audience',
    'resource',
    'scope',
  ]);
}

/**
 * The upstream AS's half: the RFC 7523 JWT-bearer grant accepting an ID-JAG from `idpIssuer`
 * (typ, signature, aud = this AS, client_id = the authenticated client) and answering an access
 * token of `<sub>-xaa`.
 */
export function registerIdJagBearer(provider: Provider, idpIssuer: string, signer: IdJagIssuer): void {
  const jwks = createLocalJWKSet({ keys: [signer.publicJwk] });
  const handler = async (ctx: GrantContext) => {
    const client = ctx.oidc.client as Client;
    let sub: string;
    try {
      const { payload } = await jwtVerify(String(ctx.oidc.params?.assertion ?? ''), jwks, {
        issuer: idpIssuer,
        audience: provider.issuer,
        typ: ID_JAG_TYP,
        algorithms: ['ES256'],
      });
      if (payload.client_id !== client.clientId) throw new Error(`client_id ${String(payload.client_id)} is not this client`);
      sub = String(payload.sub);
    } catch (err) {
      throw refuse(`assertion is not a valid ID-JAG: ${(err as Error).message}`);
    }
    await issueAccessToken(provider, ctx, `${sub}-xaa`, 'jwt_bearer');
  };
  provider.registerGrantType(JWT_BEARER_GRANT, handler as never, ['assertion', 'scope', 'resource']);
}
