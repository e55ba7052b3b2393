import type { FastifyRequest } from 'fastify';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { tenantAuthSchema } from '@switchboard/catalog';
import type { AuthServices } from '../auth-services';
import { tenantOf } from '../http/request-helpers';
import { TENANT_ID } from '../tenants/identifiers';
import { authTenant, type AuthTenant } from '../tenants/tenant-auth';
import { isCurrentIdentity } from '../users/identity-sources';

/**
 * The vault subject of the tenant admin's own linked account (used to discover `oauth_user`
 * servers). User subjects are `<tenant>|<user>`; this one has no `|`, so no user can be it.
 */
export const ADMIN_SUBJECT = '_tenant_admin';

/** The subject of a valid access token of `tenant` (never the admin's vault subject); undefined otherwise. */
export async function verifySubject(s: AuthServices, tenant: AuthTenant, token: string): Promise<string | undefined> {
  try {
    const keys = await s.keys.published(tenant.id);
    const jwks = createLocalJWKSet({ keys: keys.map(({ kty, crv, x, y, kid, alg }) => ({ kty, crv, x, y, kid, alg })) });
    const { payload } = await jwtVerify(token, jwks, {
      issuer: tenant.issuer,
      audience: tenant.mcpUrl,
      algorithms: ['ES256'],
      typ: 'at+jwt',
    });
    if (payload.tid !== tenant.id || typeof payload.sub !== 'string' || payload.sub === ADMIN_SUBJECT) return undefined;
    // A still-valid token of a former IdP's identity never reaches the vault, even before the
    // IdP-change purge has removed its rows (it runs after the new document, which a lazily read tenant meets on use).
    return isCurrentIdentity(tenant, payload.sub, s.config.SWITCHBOARD_ENV === 'development') ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

/** A known tenant, or (admin links before the tenant's first publish) one built from its id alone. */
export function anyTenant(s: AuthServices, tenantId: string | undefined, req: FastifyRequest): AuthTenant | undefined {
  const known = tenantOf(s.tenants, tenantId, req);
  if (known) return known;
  const domain = s.config.GATEWAY_DOMAIN;
  if (tenantId !== undefined) return !domain && TENANT_ID.test(tenantId) ? bareTenant(s, tenantId) : undefined;
  const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  const id = domain && host.endsWith(`.${domain.toLowerCase()}`) ? host.slice(0, -domain.length - 1) : '';
  return TENANT_ID.test(id) ? bareTenant(s, id) : undefined;
}

/** A tenant built from its id alone, with auth off (a tenant not published yet). */
export function bareTenant(s: AuthServices, id: string): AuthTenant {
  const c = s.config;
  return authTenant(id, id, tenantAuthSchema.parse({ protected: false }), {
    authPublicUrl: c.publicUrl,
    gatewayPublicUrl: c.gatewayPublicUrl,
    domain: c.GATEWAY_DOMAIN,
  });
}
