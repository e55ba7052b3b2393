import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { EnterpriseIdp } from '@switchboard/catalog';
import type { AuthTenant } from '../tenants/tenant-auth';
import { sameResource } from '../oidc/same-resource';
import type { EnterpriseJwks } from './enterprise-jwks';
import { IdJagRefusal, type IdJagCheck } from './id-jag-refusal';

/** The media type an ID-JAG header must carry (draft-ietf-oauth-identity-assertion-authz-grant §3.1). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** Asymmetric algorithms only: never `none`, never HMAC (the IdP's public key is no secret). */
const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA', 'Ed25519'];
/** Clock skew tolerated on `exp` and `iat`. */
const CLOCK_SKEW_S = 30;
/** Longest `exp - iat` accepted: ID-JAGs are short-lived, and the replay set keeps each jti until `exp`. */
export const ID_JAG_MAX_LIFETIME_S = 600;
/** Longest assertion read (an ID-JAG is well under 4 KiB). */
const MAX_ASSERTION_CHARS = 16 * 1024;
/** Longest subject value accepted. */
const MAX_SUBJECT_CHARS = 255;

export interface VerifiedIdJag {
  idp: EnterpriseIdp;
  claims: JWTPayload & Record<string, unknown>;
  /** The user at the IdP: the value of the IdP's subject claim. */
  subject: string;
  jti: string;
  expiresAt: Date;
}

export interface VerifyIdJagInput {
  tenant: AuthTenant;
  assertion: unknown;
  /** The authenticated client of the token request. */
  clientId: string;
  /** `resource` of the token request, when sent. */
  resource: unknown;
}

/**
 * Verifies an ID-JAG for a tenant: header `typ`; `iss` one of the tenant's trusted enterprise
 * IdPs; the signature with that IdP's keys (asymmetric algorithms only); `aud` the tenant's issuer;
 * `exp`/`iat` with a little skew and a bounded lifetime; `resource` (claim and request) the
 * tenant's MCP URL; `client_id` the authenticated client and one the IdP entry allows; a subject
 * and a `jti`. Every failure is an IdJagRefusal naming the check. Replay is the caller's step.
 */
export async function verifyIdJag(input: VerifyIdJagInput, jwks: EnterpriseJwks): Promise<VerifiedIdJag> {
  const { tenant, assertion } = input;
  if (typeof assertion !== 'string' || assertion.length === 0 || assertion.length > MAX_ASSERTION_CHARS)
    throw new IdJagRefusal('assertion', 'assertion must be a JWT');
  let header;
  let unverified;
  try {
    header = decodeProtectedHeader(assertion);
    unverified = decodeJwt(assertion);
  } catch (err) {
    throw new IdJagRefusal('assertion', 'assertion must be a JWT', {}, { cause: err });
  }
  if (header.typ !== ID_JAG_TYP) throw new IdJagRefusal('typ', `assertion typ must be ${ID_JAG_TYP}`);
  const iss = typeof unverified.iss === 'string' ? unverified.iss : '';
  const idp = tenant.settings.enterpriseIdps.find((i) => i.issuer === iss);
  if (!idp) throw new IdJagRefusal('iss', 'assertion issuer is not an enterprise IdP this tenant trusts', { issuer: iss.slice(0, 512) });
  let claims: JWTPayload & Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(assertion, jwks.keys(tenant.id, idp.jwksUri), {
      issuer: idp.issuer,
      audience: tenant.issuer,
      typ: ID_JAG_TYP,
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['exp', 'iat', 'jti', 'client_id'],
    }));
  } catch (err) {
    throw refusalOf(err, idp.issuer);
  }
  const details = { issuer: idp.issuer };
  // One audience only: an assertion also meant for another server could be replayed there.
  if (Array.isArray(claims.aud) && claims.aud.length !== 1)
    throw new IdJagRefusal('aud', "assertion aud must be this tenant's issuer alone", details);
  const exp = claims.exp ?? 0;
  const iat = claims.iat ?? 0;
  if (iat > Date.now() / 1000 + CLOCK_SKEW_S) throw new IdJagRefusal('iat', 'assertion is issued in the future', details);
  if (exp - iat > ID_JAG_MAX_LIFETIME_S)
    throw new IdJagRefusal('exp', `assertion lifetime must be at most ${ID_JAG_MAX_LIFETIME_S}s`, details);
  checkResource(claims.resource, input.resource, tenant.mcpUrl, details);
  if (claims.client_id !== input.clientId)
    throw new IdJagRefusal('client_id', 'assertion client_id is not the authenticated client', details);
  if (!idp.allowedClients.includes(input.clientId))
    throw new IdJagRefusal('client_not_allowed', 'this client may not use assertions of this IdP at this tenant', details);
  const subject = claims[idp.subjectClaim];
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > MAX_SUBJECT_CHARS) {
    throw new IdJagRefusal('sub', `assertion claim ${idp.subjectClaim} must name the user (1 to ${MAX_SUBJECT_CHARS} characters)`, details);
  }
  if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > 512)
    throw new IdJagRefusal('jti', 'assertion jti must be a string of 1 to 512 characters', details);
  return { idp, claims, subject, jti: claims.jti, expiresAt: new Date((exp + CLOCK_SKEW_S) * 1000) };
}

/** The `resource` claim (when present) and the request's `resource` (when sent) must both name the tenant's MCP URL. */
function checkResource(claim: unknown, requested: unknown, mcpUrl: string, details: { issuer: string }): void {
  if (claim !== undefined && (typeof claim !== 'string' || !sameResource(claim, mcpUrl)))
    throw new IdJagRefusal('resource', `assertion resource must be ${mcpUrl}`, details);
  const asked = requested === undefined ? [] : Array.isArray(requested) ? requested : [requested];
  for (const r of asked) {
    if (typeof r !== 'string' || !sameResource(r, mcpUrl)) throw new IdJagRefusal('resource', `resource must be ${mcpUrl}`, details);
  }
}

/** jose error codes that mean the keys could not be had (not that the assertion is bad). */
const KEY_FETCH_CODES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

/** The check a jose verification error stands for (by `code`: the error may come from another realm's jose classes). */
function refusalOf(err: unknown, issuer: string): IdJagRefusal {
  const details = { issuer };
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === 'ERR_JWT_EXPIRED') return new IdJagRefusal('exp', 'assertion has expired', details, { cause: err });
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    const { claim, reason } = err as errors.JWTClaimValidationFailed;
    const known: Record<string, IdJagCheck> = {
      aud: 'aud',
      iss: 'iss',
      iat: 'iat',
      nbf: 'iat',
      exp: 'exp',
      jti: 'jti',
      client_id: 'client_id',
      typ: 'typ',
      sub: 'sub',
    };
    const check = known[claim] ?? 'assertion';
    const what = check === 'aud' ? "assertion aud must be this tenant's issuer" : `assertion claim ${claim} is invalid (${reason})`;
    return new IdJagRefusal(check, what, details, { cause: err });
  }
  // Not a jose error at all (the guarded fetch refused, the socket failed) or a key-fetch code.
  if (typeof code !== 'string' || !code.startsWith('ERR_J') || KEY_FETCH_CODES.has(code)) {
    return new IdJagRefusal('jwks', 'the IdP signing keys could not be fetched', details, { cause: err });
  }
  return new IdJagRefusal('signature', 'assertion signature does not verify with the IdP keys', details, { cause: err });
}
