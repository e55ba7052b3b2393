import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { switchboardMetrics } from '@switchboard/telemetry';
import { ID_JAG_GRANT_PROFILE, registerIdJagGrant } from '../enterprise/id-jag-grant';
import type { PrivateJwk } from '../keys/signing-keys';
import type { AuthTenant } from '../tenants/tenant-auth';
import { mainRealm, oidc } from './native-modules';
import { providerConfiguration, type TenantProviderOptions } from './provider-configuration';

export { CLIENT_FETCH_BOUNDS, type TenantProviderOptions } from './provider-configuration';

/**
 * Builds one tenant's oidc-provider: authorization code + PKCE S256 only, RFC 8707 resources
 * bound to the tenant's canonical MCP URL (missing ⇒ that URL, anything else ⇒
 * `invalid_target`), ES256 JWT access tokens with `aud` = MCP URL and a `tid` claim,
 * rotating refresh tokens, open DCR and CIMD under our client policy, and our own
 * interaction pages (login, consent) mounted under the tenant.
 *
 * An issuer with a first-party client (the platform issuer) gets that one static client
 * instead of DCR and CIMD, a login prompt on every authorization (no silent SSO: the next
 * sign-in may be another administrator or another workspace), and `tid`/`name` claims of
 * the signed-in account.
 */
export function createTenantProvider(tenant: AuthTenant, keys: PrivateJwk[], o: TenantProviderOptions): Provider {
  const firstParty = tenant.firstParty;
  if (firstParty && !o.accountClaims) throw new Error(`issuer ${tenant.issuer} has a first-party client but no account claims`);
  // One resource server for both grants: an ID-JAG's token is the interactive flow's token.
  const resourceServer = async () =>
    mainRealm({
      scope: tenant.settings.scopes.join(' '),
      audience: tenant.mcpUrl,
      accessTokenTTL: o.accessTokenTtl,
      accessTokenFormat: 'jwt' as const,
      jwt: { sign: { alg: 'ES256' as const, kid: keys[0]?.kid } },
    });
  const configuration = providerConfiguration({ tenant, keys, o, resourceServer });
  const provider = new oidc.default(tenant.issuer, mainRealm(configuration) as unknown as Configuration);
  provider.proxy = o.trustProxy || tenant.mountPath === '';
  const acceptsIdJag = !firstParty && o.enterprise !== undefined && tenant.settings.enterpriseIdps.length > 0;
  if (acceptsIdJag && o.enterprise) registerIdJagGrant(provider, tenant, resourceServer, o.enterprise);
  advertiseInDiscovery(provider, tenant, acceptsIdJag);
  observeProvider(provider);
  return provider;
}

/** Discovery lists only OIDC scopes by itself; MCP clients read scopes_supported to decide what to ask for. */
function advertiseInDiscovery(provider: Provider, tenant: AuthTenant, acceptsIdJag: boolean): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
      const body = ctx.body as Record<string, unknown>;
      // SEP-2207: no offline_access here, or clients would ask for it.
      body.scopes_supported = [...tenant.settings.scopes, 'openid'];
      body.code_challenge_methods_supported = ['S256'];
      if (acceptsIdJag) body.authorization_grant_profiles_supported = [ID_JAG_GRANT_PROFILE];
      if (!tenant.firstParty) body.client_id_metadata_document_supported = true;
    }
  });
}

/** OAuth error code of a provider error as a bounded label (`invalid_grant`, …; anything else `server_error`). */
function oauthError(err: unknown): string {
  const code = (err as { error?: unknown } | undefined)?.error;
  return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : 'server_error';
}

/** auth_authorizations_total, auth_token_grants_total, auth_client_registrations_total from the provider's events (no tenant label: bounded). */
function observeProvider(provider: Provider): void {
  const m = switchboardMetrics().auth;
  const grantType = (ctx: KoaContextWithOIDC | undefined) => {
    const g = (ctx?.oidc?.params as { grant_type?: unknown } | undefined)?.grant_type;
    return typeof g === 'string' && /^[a-z_:.-]{1,80}$/i.test(g) ? (g.startsWith('urn:') ? g.slice(g.lastIndexOf(':') + 1) : g) : 'unknown';
  };
  provider.on('authorization.success', () => m.authorizations.add(1, { outcome: 'ok' }));
  provider.on('authorization.error', (_ctx: unknown, err: unknown) => m.authorizations.add(1, { outcome: oauthError(err) }));
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => m.tokenGrants.add(1, { grant_type: grantType(ctx), outcome: 'ok' }));
  provider.on('grant.error', (ctx: KoaContextWithOIDC, err: unknown) =>
    m.tokenGrants.add(1, { grant_type: grantType(ctx), outcome: oauthError(err) }),
  );
  provider.on('registration_create.success', () => m.registrations.add(1, { outcome: 'ok' }));
  provider.on('registration_create.error', (_ctx: unknown, err: unknown) => m.registrations.add(1, { outcome: oauthError(err) }));
}
