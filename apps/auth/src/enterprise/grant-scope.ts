import { enterpriseGroupScopes, MAX_GROUPS_READ, type EnterpriseIdp } from '@switchboard/catalog';
import { IdJagRefusal } from './id-jag-refusal';

export interface GrantScopeInput {
  idp: EnterpriseIdp;
  /** The tenant's MCP scopes and the ones granted when nothing is asked. */
  tenantScopes: readonly string[];
  defaultScopes: readonly string[];
  /** `scope` of the token request, when sent. */
  requested: string | undefined;
  /** The assertion's claims (its `scope` and groups claim are read). */
  claims: Record<string, unknown>;
}

/**
 * The scopes an ID-JAG grant gets: what the request asks (else the assertion's `scope`, else the
 * tenant's default scopes), narrowed to the assertion's `scope` when it has one (the IdP's policy
 * decision), to the tenant's scopes, and — when the IdP maps groups — to the scopes of the
 * user's mapped groups. A user in no mapped group is refused (`group`); nothing left, `scope`.
 */
export function grantScope(o: GrantScopeInput): string[] {
  const split = (s: unknown) => (typeof s === 'string' ? s.split(' ').filter(Boolean) : undefined);
  const allowed = groupScopes(o);
  const fromAssertion = split(o.claims.scope);
  // Nothing asked: a mapped user gets the scopes of the groups, anyone else the tenant's defaults.
  let scopes = split(o.requested) ?? fromAssertion ?? (allowed ? [...allowed] : [...o.defaultScopes]);
  if (fromAssertion) scopes = scopes.filter((s) => fromAssertion.includes(s));
  scopes = scopes.filter((s) => o.tenantScopes.includes(s) && (!allowed || allowed.has(s)));
  if (scopes.length === 0) throw new IdJagRefusal('scope', 'no requested scope is granted to this user at this server');
  return [...new Set(scopes)];
}

/** The scopes the user's mapped groups allow; undefined when the IdP maps no groups (no group rule). */
function groupScopes(o: GrantScopeInput): Set<string> | undefined {
  const raw = o.claims[o.idp.groupsClaim];
  const groups = Array.isArray(raw) ? raw.slice(0, MAX_GROUPS_READ).filter((g): g is string => typeof g === 'string') : [];
  const allowed = enterpriseGroupScopes(o.idp, groups);
  if (allowed?.size === 0)
    throw new IdJagRefusal('group', `the user is in no group allowed to use this server (claim ${o.idp.groupsClaim})`);
  return allowed;
}
