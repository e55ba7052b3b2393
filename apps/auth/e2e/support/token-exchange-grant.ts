import type { Provider } from 'oidc-provider';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { oidc } from '../../src/oidc/native-modules';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface TokenExchangePolicy {
  /** The issuer whose assertions are trusted (the tenant's AS) and its JWKS. */
  trustedIssuer: string;
  jwksUrl: string;
  /** The account an assertion's subject maps to at this AS; a string refuses the exchange with that description. */
  account(subject: string): { accountId: string } | string;
  /** Every subject token presented, in order (what went out of the platform). */
  seen: string[];
}

interface ExchangeContext {
  oidc: { params?: Record<string, unknown>; client?: unknown; provider: Provider; entity(kind: string, value: unknown): void };
  body?: unknown;
}

/**
 * RFC 8693 token exchange at a test oidc-provider (registerGrantType), playing a connector's
 * own AS that trusts the tenant's identity assertions: the subject token must be an ID-token-
 * typed JWT signed by `trustedIssuer`, for this AS; the answer is an opaque access token of the
 * mapped account (recorded by the IdP's `accessTokens`).
 */
export function registerTokenExchange(provider: Provider, policy: TokenExchangePolicy): void {
  const jwks = createRemoteJWKSet(new URL(policy.jwksUrl));
  const refuse = (description: string) => new oidc.errors.CustomOIDCProviderError('invalid_grant', description);
  const handler = async (ctx: ExchangeContext) => {
    const params = ctx.oidc.params ?? {};
    const subjectToken = String(params.subject_token ?? '');
    policy.seen.push(subjectToken);
    if (params.subject_token_type !== ID_TOKEN_TYPE) throw refuse(`subject_token_type must be ${ID_TOKEN_TYPE}`);
    let sub: string;
    try {
      const { payload } = await jwtVerify(subjectToken, jwks, { issuer: policy.trustedIssuer, audience: provider.issuer, algorithms: ['ES256'] });
      sub = String(payload.sub);
    } catch (err) {
      throw refuse(`subject_token is not a valid assertion of ${policy.trustedIssuer}: ${(err as Error).message}`);
    }
    const mapped = policy.account(sub);
    if (typeof mapped === 'string') throw refuse(mapped);
    const token = new provider.AccessToken({ accountId: mapped.accountId, client: ctx.oidc.client as never, gty: 'token_exchange', scope: typeof params.scope === 'string' ? params.scope : undefined });
    ctx.oidc.entity('AccessToken', token);
    const value = await token.save();
    ctx.body = { access_token: value, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: token.expiration };
  };
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler as never, ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope']);
}
