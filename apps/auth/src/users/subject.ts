import { createHash } from 'node:crypto';
import type { IdpSettings } from '../tenants/tenant-auth';

/** The identity source of the development any-name login (SWITCHBOARD_ENV=development only). */
export const DEV_IDP_ID = 'local';
/** The identity source of the tenant user directory (passwords and passkeys). */
export const DIRECTORY_IDP_ID = 'dir';

/**
 * The identity source of a tenant's configured IdP: `dir` for the user directory, and for an
 * enterprise IdP `oidc-` + a hash of its issuer (the issuer is what scopes an OIDC `sub`), so
 * switching to another IdP yields other subjects and never reaches the old ones' vault entries.
 */
export function idpIdOf(idp: IdpSettings): string {
  if (idp.kind === 'oidc') return oidcIdpId(idp.issuer);
  return DIRECTORY_IDP_ID;
}

/**
 * The identity source of an OIDC issuer, whether it signs users in interactively or issues
 * ID-JAGs: one IdP, one source, so a user reaching a tenant both ways is one account.
 */
export function oidcIdpId(issuer: string): string {
  return `oidc-${createHash('sha256').update(issuer.replace(/\/+$/, '')).digest('hex').slice(0, 16)}`;
}

/** An account id (the token `sub`): `<tenant>|<idp-id>|<subject at that source>`. */
export function accountIdOf(tenantId: string, idpId: string, sub: string): string {
  return `${tenantId}|${idpId}|${sub}`;
}

/** The user part of an account id for display (after tenant and identity source). */
export function displayUser(tenantId: string, accountId: string): string {
  const rest = accountId.startsWith(`${tenantId}|`) ? accountId.slice(tenantId.length + 1) : accountId;
  const bar = rest.indexOf('|');
  return bar >= 0 ? rest.slice(bar + 1) : rest;
}
