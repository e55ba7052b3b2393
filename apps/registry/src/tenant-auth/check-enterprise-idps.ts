import type { TenantAuthSettings } from '@switchboard/catalog';
import type { GuardedFetch } from '@switchboard/net-guard';
import { ApiError } from '../http/api-error';
import { checkJwks } from './check-jwks';

/**
 * Checks a new list of trusted enterprise IdPs against the rest of the settings before it is
 * saved: every mapped group's scopes are tenant scopes (else that group could never be granted
 * anything), and every JWKS URL not already trusted answers with public signing keys through
 * the SSRF guard. Errors name the field (`body.enterpriseIdps.<i>.…`).
 */
export async function checkEnterpriseIdps(fetch: GuardedFetch, next: TenantAuthSettings, base: TenantAuthSettings): Promise<void> {
  for (const [i, e] of next.enterpriseIdps.entries()) {
    for (const [group, scopes] of Object.entries(e.groupScopes)) {
      const unknown = scopes.find((s) => !next.scopes.includes(s));
      if (!unknown) continue;
      const field = `body.enterpriseIdps.${i}.groupScopes`;
      const message = `group ${group}: scope "${unknown}" is not one of the tenant's scopes (${next.scopes.join(' ')})`;
      throw new ApiError(400, 'VALIDATION', `${field}: ${message}`, field, { issues: [{ field, message }] });
    }
  }
  const known = new Set(base.enterpriseIdps.map((e) => e.jwksUri));
  for (const [i, e] of next.enterpriseIdps.entries()) {
    if (!known.has(e.jwksUri)) await checkJwks(fetch, e.jwksUri, `body.enterpriseIdps.${i}.jwksUri`);
  }
}
