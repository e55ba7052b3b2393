import { tenantAuthSchema } from '@switchboard/catalog';
import type { PlatformIssuerSettings } from '../config';
import type { AuthTenant } from '../tenants/tenant-auth';

/**
 * Internal id of the platform issuer in keys, storage and cookies. Tenant ids are DNS labels,
 * so an id with an underscore can never collide with a tenant's.
 */
export const PLATFORM_ID = '_platform';
/** Mount path (and issuer path) of the platform issuer on this service. */
export const PLATFORM_MOUNT = '/platform';
/** The tenant console's client id, the only client the platform issuer knows. */
export const CONSOLE_CLIENT_ID = 'switchboard-console';
/**
 * The `switchboard` CLI's client: public and native, PKCE, redirect to a loopback listener on
 * any port (RFC 8252 §7.3), or device authorization (RFC 8628) on a machine without a browser,
 * so `switchboard login` needs no operator configuration.
 */
export const CLI_CLIENT_ID = 'switchboard-cli';
export const CLI_REDIRECT_URI = 'http://127.0.0.1/callback';
/** The scope of console access tokens (granted when a request names no scope). */
export const CONSOLE_SCOPE = 'console';

/**
 * The platform issuer as an AuthTenant: `${AUTH_PUBLIC_URL}/platform` (path-based even when
 * tenants are host-based), resource/audience = the admin API URL, scope `console`, and the
 * first-party console and CLI clients instead of DCR/CIMD. The same provider machinery serves it.
 */
export function platformIssuer(settings: PlatformIssuerSettings, authPublicUrl: string): AuthTenant {
  return {
    id: PLATFORM_ID,
    name: 'Switchboard',
    settings: tenantAuthSchema.parse({ scopes: [CONSOLE_SCOPE], allowPrivateUseRedirects: false }),
    mcpUrl: settings.audience,
    issuer: `${authPublicUrl}${PLATFORM_MOUNT}`,
    mountPath: PLATFORM_MOUNT,
    defaultScopes: [CONSOLE_SCOPE],
    firstParty: { clientId: CONSOLE_CLIENT_ID, clientName: 'Switchboard console', redirectUris: settings.redirectUris },
    moreFirstParty: [
      {
        clientId: CLI_CLIENT_ID,
        clientName: 'Switchboard CLI',
        redirectUris: [CLI_REDIRECT_URI],
        applicationType: 'native',
        deviceFlow: true,
      },
    ],
  };
}

/** The `<tenant>|<username>` account id (and `sub`) of a console administrator. */
export function consoleAccountId(tenant: string, username: string): string {
  return `${tenant}|${username}`;
}
