import type { EnterpriseIdp } from './enterprise-idp-schema';

/** Groups read from one assertion's groups claim (more are ignored, not an error). */
export const MAX_GROUPS_READ = 1000;

/**
 * The scopes an enterprise IdP's group mapping allows a user in `groups`; undefined when the IdP
 * maps no groups (no group rule: any user of the IdP may get the tenant's scopes). An empty set
 * means the user is in no mapped group, and the token endpoint refuses them. Shared by the auth
 * service's grant and the registry's Explain API.
 */
export function enterpriseGroupScopes(idp: Pick<EnterpriseIdp, 'groupScopes'>, groups: readonly string[]): Set<string> | undefined {
  const mapping = Object.entries(idp.groupScopes);
  if (mapping.length === 0) return undefined;
  const member = new Set(groups.slice(0, MAX_GROUPS_READ));
  return new Set(mapping.filter(([group]) => member.has(group)).flatMap(([, s]) => s));
}
