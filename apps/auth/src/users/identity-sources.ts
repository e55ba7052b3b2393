import type { AuthTenant } from '../tenants/tenant-auth';
import { DEV_IDP_ID, idpIdOf, oidcIdpId } from './subject';

/**
 * The identity sources whose subjects are a tenant's users now: its configured IdP (`dir` for the
 * user directory, `oidc-<hash of issuer>` for an enterprise IdP) and, for a directory tenant on a
 * service in development, the any-name login (`local`). Anything else (a former IdP, or `local`
 * once the service no longer runs in development) names people who cannot sign in here any more.
 */
export function currentIdentitySources(tenant: Pick<AuthTenant, 'settings'>, devLogin: boolean): string[] {
  const configured = idpIdOf(tenant.settings.idp);
  const sources = tenant.settings.idp.kind === 'local' && devLogin ? [configured, DEV_IDP_ID] : [configured];
  // Users of trusted enterprise IdPs (ID-JAG) are the tenant's users too: their vault rows stay.
  for (const e of tenant.settings.enterpriseIdps) {
    const id = oidcIdpId(e.issuer);
    if (!sources.includes(id)) sources.push(id);
  }
  return sources;
}

/** The identity source of an account id `<tenant>|<idp-id>|<sub>`; undefined when it is not of that tenant's shape. */
export function identitySourceOf(tenantId: string, accountId: string): string | undefined {
  const prefix = `${tenantId}|`;
  if (!accountId.startsWith(prefix)) return undefined;
  const rest = accountId.slice(prefix.length);
  const bar = rest.indexOf('|');
  return bar > 0 ? rest.slice(0, bar) : undefined;
}

/**
 * Whether a signed-in account of a tenant issuer still belongs to one of the tenant's identity
 * sources. Checked on every session, code and refresh-token use, so an identity of a former IdP
 * stops working the moment the new settings arrive, before its stored artefacts are purged. An
 * issuer with a first-party client (the platform issuer) has no identity sources to judge.
 */
export function isCurrentIdentity(
  tenant: Pick<AuthTenant, 'id' | 'settings' | 'firstParty'>,
  accountId: string,
  devLogin: boolean,
): boolean {
  if (tenant.firstParty) return true;
  const source = identitySourceOf(tenant.id, accountId);
  return source !== undefined && currentIdentitySources(tenant, devLogin).includes(source);
}
