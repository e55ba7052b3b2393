import { randomUUID, type KeyObject } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { SignJWT, jwtVerify } from 'jose';
import { mainRealm, oidc } from '../../src/oidc/native-modules';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
/** ID-JAG lifetime the test IdP issues (the profile asks for short-lived assertions). */
const ID_JAG_TTL_S = 300;

/** What the IdP puts in an ID-JAG for one audience (a resource authorization server's issuer). */
export interface IdJagTarget {
  /** The MCP server (resource) the audience's tokens are for: the ID-JAG `resource`. */
  resource: string;
  /** The MCP client's id at that authorization server: the ID-JAG `client_id`. */
  clientId: string;
}

/** The IdP administrator's policy for one of its clients (an MCP client signed in through SSO). */
export interface IdJagClientPolicy {
  /** Audience → what to issue for it; an audience not listed is refused (`invalid_target`). */
  targets: Record<string, IdJagTarget>;
  /** Seconds `iat`/`exp` are moved into the past (an IdP with a wrong clock; tests expiry). */
  backdateS?: number;
}

export interface IdJagExchangeState {
  issuer: string;
  /** Policy per IdP client id; a client without one gets no ID-JAG. */
  idJagPolicy: Record<string, IdJagClientPolicy>;
  /** Groups per user (the ID-JAG's `groups` claim). */
  groups: Record<string, string[]>;
  /** ID-JAGs issued, in order (their claims), so tests can assert what the IdP decided. */
  issuedIdJags: Array<Record<string, unknown>>;
}

/**
 * RFC 8693 token exchange at the test IdP: an ID token it issued to the calling client becomes
 * an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §4.3) for the requested audience
 * and resource, when the client's policy lists that audience with that resource.
 */
export function registerIdJagExchange(
  provider: Provider,
  state: IdJagExchangeState,
  keys: { privateKey: KeyObject; publicKey: KeyObject; kid: string },
): void {
  const { errors } = oidc;
  const handler = async (ctx: KoaContextWithOIDC) => {
    const p = ctx.oidc.params as Record<string, string | undefined>;
    const client = ctx.oidc.client!;
    if (p.requested_token_type !== ID_JAG_TOKEN_TYPE) throw new errors.InvalidRequest(`requested_token_type must be ${ID_JAG_TOKEN_TYPE}`);
    if (p.subject_token_type !== ID_TOKEN_TYPE) throw new errors.InvalidRequest(`subject_token_type must be ${ID_TOKEN_TYPE}`);
    let sub: string;
    try {
      const { payload } = await jwtVerify(p.subject_token ?? '', keys.publicKey, { issuer: state.issuer, audience: client.clientId });
      sub = String(payload.sub);
    } catch (err) {
      throw new errors.InvalidGrant(`subject_token is not a valid ID token of this IdP for this client: ${(err as Error).message}`);
    }
    const policy = state.idJagPolicy[client.clientId];
    const target = policy?.targets[p.audience ?? ''];
    if (!policy || !target) throw new errors.InvalidTarget('this client may not get assertions for that audience');
    if (p.resource !== undefined && p.resource !== target.resource)
      throw new errors.InvalidTarget('resource does not belong to that audience');
    const iat = Math.floor(Date.now() / 1000) - (policy.backdateS ?? 0);
    const claims = {
      sub,
      client_id: target.clientId,
      resource: target.resource,
      groups: state.groups[sub] ?? [],
      ...(p.scope ? { scope: p.scope } : {}),
      jti: randomUUID(),
    };
    const jag = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: keys.kid, typ: 'oauth-id-jag+jwt' })
      .setIssuer(state.issuer)
      .setAudience(p.audience ?? '')
      .setIssuedAt(iat)
      .setExpirationTime(iat + ID_JAG_TTL_S)
      .sign(keys.privateKey);
    state.issuedIdJags.push({ ...claims, aud: p.audience, iat, exp: iat + ID_JAG_TTL_S });
    ctx.body = mainRealm({
      issued_token_type: ID_JAG_TOKEN_TYPE,
      access_token: jag,
      token_type: 'N_A',
      expires_in: ID_JAG_TTL_S,
      ...(p.scope ? { scope: p.scope } : {}),
    });
  };
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler as unknown as Parameters<Provider['registerGrantType']>[1], [
    'subject_token',
    'subject_token_type',
    'requested_token_type',
    'audience',
    'resource',
    'scope',
  ]);
}
