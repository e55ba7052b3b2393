import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import { switchboardMetrics } from '@switchboard/telemetry';
import { oidc } from '../oidc/native-modules';
import type { AuthTenant } from '../tenants/tenant-auth';
import type { EnterpriseJwks } from './enterprise-jwks';
import { evaluateIdJag } from './evaluate-id-jag';
import type { IdJagStore } from './id-jag-store';
import { IdJagRefusal } from './id-jag-refusal';

/** RFC 7523 JWT-bearer grant type, the one ID-JAGs are presented with. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The AS metadata value that says this server accepts ID-JAGs (draft-ietf-oauth-identity-assertion-authz-grant §7.2). */
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

export interface IdJagGrantDeps {
  jwks: EnterpriseJwks;
  store: IdJagStore;
  logger?: Logger;
}

/** The resource server of the tenant's access tokens: the same one the interactive flow's tokens get. */
export type ResourceServerOf = () => Promise<Record<string, unknown>>;

/**
 * Registers the JWT-bearer grant for ID-JAGs on a tenant's provider (only when the tenant trusts
 * an enterprise IdP): the authenticated client presents an assertion; once verified (see
 * verifyIdJag), its `jti` used once and its scopes narrowed (see grantScope), the answer is the
 * same audience-bound JWT access token the authorization-code flow issues, without refresh token.
 * Every refusal is `invalid_grant` naming the check; every answer is audited and counted.
 */
export function registerIdJagGrant(provider: Provider, tenant: AuthTenant, resourceServer: ResourceServerOf, deps: IdJagGrantDeps): void {
  // A failed audit write is logged, never turned into a different answer for the client.
  const audit = (entry: Parameters<IdJagStore['audit']>[0]) =>
    deps.store
      .audit(entry)
      .catch((err: unknown) => deps.logger?.error({ err, tenant: tenant.id, check: entry.check }, 'ID-JAG audit entry not written'));
  const handler = async (ctx: KoaContextWithOIDC) => {
    const client = ctx.oidc.client;
    const params = ctx.oidc.params as Record<string, unknown>;
    const clientId = client?.clientId ?? '';
    try {
      const request = { assertion: params.assertion, clientId, resource: params.resource, scope: params.scope as string | undefined };
      const { verified: v, accountId, scopes } = await evaluateIdJag(tenant, request, deps.jwks);
      if (!(await deps.store.useOnce(tenant.id, v.idp.issuer, v.jti, v.expiresAt))) {
        throw new IdJagRefusal('jti', 'assertion was already used', { issuer: v.idp.issuer, subject: v.subject });
      }
      const token = new provider.AccessToken({ accountId, client, scope: scopes.join(' '), gty: 'jwt_bearer' } as ConstructorParameters<
        typeof provider.AccessToken
      >[0]);
      (token as unknown as { resourceServer: unknown }).resourceServer = await resourceServer();
      ctx.oidc.entity('AccessToken', token);
      const value = await token.save();
      await audit({ tenantId: tenant.id, outcome: 'granted', check: 'none', issuer: v.idp.issuer, clientId, subject: accountId });
      switchboardMetrics().auth.idJagGrants.add(1, { outcome: 'granted', check: 'none' });
      ctx.body = { access_token: value, token_type: 'Bearer', expires_in: token.expiration, scope: scopes.join(' ') };
    } catch (err) {
      if (!(err instanceof IdJagRefusal)) throw err;
      switchboardMetrics().auth.idJagGrants.add(1, { outcome: 'refused', check: err.check });
      await audit({ tenantId: tenant.id, outcome: 'refused', check: err.check, clientId, ...err.details });
      deps.logger?.info(
        { tenant: tenant.id, check: err.check, issuer: err.details.issuer, client: clientId, err: err.cause },
        'ID-JAG refused',
      );
      throw new oidc.errors.CustomOIDCProviderError('invalid_grant', `${err.check}: ${err.description}`);
    }
  };
  provider.registerGrantType(
    JWT_BEARER_GRANT,
    handler as unknown as Parameters<Provider['registerGrantType']>[1],
    ['assertion', 'scope', 'resource'],
    ['resource'],
  );
}
