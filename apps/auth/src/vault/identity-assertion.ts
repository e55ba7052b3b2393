import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import type { SigningKeys } from '../keys/signing-keys';
import type { AuthTenant } from '../tenants/tenant-auth';

/** RFC 8693 token type of the assertion (an ID-token-shaped JWT). */
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
/** Seconds an assertion is valid: long enough for one exchange, too short to be worth stealing. */
export const ASSERTION_TTL_S = 60;

/**
 * The user's identity assertion for an upstream token request: a short-lived JWT the tenant's
 * AS signs with its own key (iss = the tenant issuer, sub = the tenant subject, aud = the server
 * that receives it, a fresh `jti`), verifiable at the tenant's published JWKS.
 *
 * Why ours and not the IdP's ID token: the auth service does not keep the enterprise IdP's ID
 * token after sign-in (it expires within the hour and local/directory sign-ins have none), so
 * the tenant AS vouches for the subject it authenticated. `typ` is `JWT` and `aud` is never the
 * MCP URL, so the gateway (which requires `at+jwt` and its own audience) never accepts one, and
 * the client's own access token is never what goes out.
 */
export async function identityAssertion(keys: SigningKeys, tenant: AuthTenant, subject: string, audience: string): Promise<string> {
  const [jwk] = await keys.published(tenant.id);
  if (!jwk) throw new Error(`tenant ${tenant.id} has no signing key`);
  const { kty, crv, x, y, d } = jwk;
  const key = await importJWK({ kty, crv, x, y, d }, 'ES256');
  return new SignJWT({ tid: tenant.id })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'JWT' })
    .setIssuer(tenant.issuer)
    .setSubject(subject)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${ASSERTION_TTL_S}s`)
    .setJti(randomUUID())
    .sign(key);
}
