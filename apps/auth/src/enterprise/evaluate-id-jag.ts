import type { AuthTenant } from '../tenants/tenant-auth';
import { accountIdOf, oidcIdpId } from '../users/subject';
import type { EnterpriseJwks } from './enterprise-jwks';
import { grantScope } from './grant-scope';
import { verifyIdJag, type VerifiedIdJag } from './verify-id-jag';

export interface IdJagRequest {
  assertion: unknown;
  /** The client presenting the assertion (authenticated at the token endpoint). */
  clientId: string;
  /** `resource` and `scope` of the token request, when sent. */
  resource?: unknown;
  scope?: string;
}

export interface IdJagDecision {
  verified: VerifiedIdJag;
  /** `<tenant>|oidc-<hash of issuer>|<subject>`: the token `sub`. */
  accountId: string;
  scopes: string[];
}

/**
 * Everything the tenant decides about an ID-JAG short of spending its `jti` and issuing a token:
 * the verification (verifyIdJag), the subject in the tenant's namespace and the granted scopes
 * (grantScope). Throws IdJagRefusal naming the failed check. The grant and the admin's dry-run
 * check both use it, so a check says exactly what the token endpoint would.
 */
export async function evaluateIdJag(tenant: AuthTenant, request: IdJagRequest, jwks: EnterpriseJwks): Promise<IdJagDecision> {
  const verified = await verifyIdJag(
    { tenant, assertion: request.assertion, clientId: request.clientId, resource: request.resource },
    jwks,
  );
  const scopes = grantScope({
    idp: verified.idp,
    tenantScopes: tenant.settings.scopes,
    defaultScopes: tenant.defaultScopes,
    requested: request.scope,
    claims: verified.claims,
  });
  return { verified, accountId: accountIdOf(tenant.id, oidcIdpId(verified.idp.issuer), verified.subject), scopes };
}
