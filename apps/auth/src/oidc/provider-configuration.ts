import type { ClientMetadata, Configuration, ErrorOut, KoaContextWithOIDC } from 'oidc-provider';
import type { Pool } from 'pg';
import { boundedFetch, guardedFetch } from '@switchboard/net-guard';
import type { SecretBox } from '@switchboard/secret-box';
import { applyClientPolicy } from '../clients/client-policy';
import { outboundUrlAllowed, type HostLookup } from '../clients/outbound-url';
import { PgAdapter, type DcrClientPolicy } from '../db/pg-adapter';
import type { IdJagGrantDeps } from '../enterprise/id-jag-grant';
import { escapeHtml } from '../http/html';
import type { PrivateJwk } from '../keys/signing-keys';
import { devicePages } from '../platform/device-pages';
import type { AuthTenant } from '../tenants/tenant-auth';
import { mainRealm, oidc } from './native-modules';
import { sameResource } from './same-resource';

/** One guarded fetch (and its keep-alive agents) for every tenant's provider; no host is allow-listed. */
const cimdFetch = guardedFetch({ allowHosts: [] });
/**
 * Bounds of a fetch a client makes us do (its metadata document, its jwks_uri, its sector
 * identifier): a client, not a tenant, names these URLs, so each answer is small and quick or refused.
 */
export const CLIENT_FETCH_BOUNDS = { timeoutMs: 5000, maxBytes: 64 * 1024 };

export interface TenantProviderOptions {
  pool: Pool;
  schema: string;
  box: SecretBox;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  /** Expiry and cap of dynamically registered clients. */
  dcrClients: DcrClientPolicy;
  /** Cookies get `Secure` when the public URL is https. */
  secureCookies: boolean;
  trustProxy: boolean;
  /** CIMD fetch plumbing (tests point it at loopback servers behind public-looking names). */
  cimd?: { lookup?: HostLookup; fetch?: (url: string, init: RequestInit) => Promise<Response> };
  /** Token claims of an account signed in at an issuer with a first-party client (the platform issuer's `tid` and `name`). */
  accountClaims?: (accountId: string) => Promise<Record<string, unknown>>;
  /** False ⇒ the account no longer exists (a disabled directory user): its session and refresh tokens stop working. */
  accountActive?: (tenant: AuthTenant, accountId: string, issuedAt: number | undefined) => Promise<boolean>;
  /** JWKS cache and replay/audit store of the ID-JAG grant; absent ⇒ no tenant accepts ID-JAGs. */
  enterprise?: IdJagGrantDeps;
}

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The extra client metadata property that makes oidc-provider call our policy for every client. */
const POLICY_PROPERTY = 'sb_policy';

/** What every section of a tenant's provider configuration is built from. */
export interface ProviderParts {
  tenant: AuthTenant;
  keys: PrivateJwk[];
  o: TenantProviderOptions;
  /** The resource server of the tenant's MCP URL (shared with the ID-JAG grant). */
  resourceServer: () => Promise<unknown>;
}

/**
 * The oidc-provider configuration of one tenant: authorization code + PKCE S256 only, RFC 8707
 * resources bound to the tenant's MCP URL, ES256 JWT access tokens, rotating refresh tokens,
 * open DCR and CIMD under our client policy (none for a first-party issuer), our own pages.
 */
export function providerConfiguration(p: ProviderParts): Record<string, unknown> {
  return {
    ...clientsSection(p),
    ...sessionSection(p),
    ...tokenSection(p),
    features: featuresSection(p),
    // Every outgoing fetch (CIMD documents) resolves through libs/net-guard: the address is checked
    // before the socket connects, not after, so a client cannot make us probe internal ports.
    fetch: boundedFetch(p.o.cimd?.fetch ?? cimdFetch, CLIENT_FETCH_BOUNDS),
    // oidc-provider reads jwks_uri and sector_identifier_uri without a limit by default.
    fetchResponseBodyLimits: {
      'client_id metadata document': 5 * 1024,
      jwks_uri: CLIENT_FETCH_BOUNDS.maxBytes,
      sector_identifier_uri: CLIENT_FETCH_BOUNDS.maxBytes,
    },
    routes: ROUTES,
    renderError,
  };
}

/** Where clients come from: the static first-party ones, or the table (DCR and CIMD) under our client policy. */
function clientsSection({ tenant, o }: ProviderParts): Record<string, unknown> {
  const firstParty = tenant.firstParty;
  const firstPartyClients = firstParty ? [firstParty, ...(tenant.moreFirstParty ?? [])] : [];
  const clientPolicy = {
    properties: [POLICY_PROPERTY],
    validator(ctx: KoaContextWithOIDC | undefined, key: string, _value: unknown, metadata: ClientMetadata) {
      if (key !== POLICY_PROPERTY) return;
      delete (metadata as Record<string, unknown>)[POLICY_PROPERTY];
      const body = ctx?.oidc?.route === 'registration' ? (ctx.oidc.body as Record<string, unknown> | undefined) : undefined;
      applyClientPolicy(metadata as Parameters<typeof applyClientPolicy>[0], body?.application_type !== undefined, {
        allowPrivateUseRedirects: tenant.settings.allowPrivateUseRedirects,
      });
    },
  };
  return {
    // The first-party client is static (not in the table): the DCR expiry and cap are for registered ones.
    adapter: (name: string) => new PgAdapter(o.pool, o.schema, tenant.id, name, o.box, firstParty ? undefined : o.dcrClients),
    clients: firstPartyClients.map((c) => ({
      client_id: c.clientId,
      client_name: c.clientName,
      application_type: c.applicationType ?? 'web',
      redirect_uris: c.redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token', ...(c.deviceFlow ? [DEVICE_CODE_GRANT] : [])],
      response_types: ['code'],
    })),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    // The first-party client is configured by the operator, not registered: no DCR policy for it.
    ...(firstParty ? {} : { extraClientMetadata: clientPolicy }),
  };
}

/** Cookies, the signed-in account (and when it stops being active), interactions and lifetimes. */
function sessionSection({ tenant, o }: ProviderParts): Record<string, unknown> {
  const firstParty = tenant.firstParty;
  const cookieKey = o.box.derive(`cookies:${tenant.id}`).toString('base64url');
  // The platform issuer is always at AUTH_PUBLIC_URL, whatever the tenants' layout.
  const cookieOptions = {
    signed: true,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: firstParty ? tenant.issuer.startsWith('https:') : o.secureCookies,
  };
  return {
    cookies: {
      keys: [cookieKey],
      // Path-based tenants share an origin: per-tenant cookie names keep their sessions apart.
      names: { session: `sb_${tenant.id}_session`, interaction: `sb_${tenant.id}_interaction`, resume: `sb_${tenant.id}_resume` },
      long: cookieOptions,
      short: cookieOptions,
    },
    findAccount: async (ctx: KoaContextWithOIDC, sub: string, token?: unknown) => {
      const account = () => mainRealm({ accountId: sub, claims: async () => mainRealm({ sub }) });
      const session = ctx.oidc?.session;
      // When the session or token began (epoch seconds): a password changed since then ends it.
      const issuedAt = token === undefined ? session?.loginTs : (token as { iat?: number }).iat;
      if (!o.accountActive || (await o.accountActive(tenant, sub, issuedAt))) return account();
      // A browser session of a removed account: the authorization endpoint fails on a session without
      // an account, so forget who signed in (the login prompt then asks again). Tokens and codes of it fail.
      if (token === undefined && session?.accountId === sub) {
        // Deleted, not set: the session proxy refuses an empty accountId (and this request then prompts for login).
        Reflect.deleteProperty(session, 'accountId');
        return account();
      }
      return undefined;
    },
    interactions: {
      ...(firstParty ? { policy: freshLoginPolicy() } : {}),
      url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => `${tenant.mountPath}/interaction/${interaction.uid}`,
    },
    ttl: {
      AccessToken: o.accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 300,
      Interaction: 600,
      Session: 24 * 3600,
      Grant: o.refreshTokenTtl,
      RefreshToken: o.refreshTokenTtl,
    },
  };
}

/** Scopes, signing algorithms, PKCE, and what a token carries and when a refresh token is issued and rotated. */
function tokenSection({ tenant, keys, o }: ProviderParts): Record<string, unknown> {
  const { errors } = oidc;
  const firstParty = tenant.firstParty;
  const accountClaims = o.accountClaims;
  return {
    jwks: { keys: keys as unknown as NonNullable<Configuration['jwks']>['keys'] },
    claims: { openid: ['sub'] },
    // SEP-2207: MCP issuers do not offer offline_access (refresh tokens come without it, see
    // issueRefreshToken); the platform issuer's console sign-in still accepts it.
    scopes: firstParty ? ['openid', 'offline_access'] : ['openid'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256'],
      userinfoSigningAlgValues: ['ES256'],
      introspectionSigningAlgValues: ['ES256'],
      authorizationSigningAlgValues: ['ES256'],
    },
    issueRefreshToken: async (_ctx: KoaContextWithOIDC, client: { grantTypeAllowed(t: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    // Called before oidc-provider consumes the presented refresh token: a bad `resource` is refused
    // here, so the token stays valid (refused after consumption, the next refresh would count as
    // reuse and revoke the whole family). Always rotates.
    rotateRefreshToken: async (ctx: KoaContextWithOIDC) => {
      const raw = (ctx.oidc.params as Record<string, unknown> | undefined)?.resource;
      const resources = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      for (const r of resources) {
        if (typeof r !== 'string' || !sameResource(r, tenant.mcpUrl)) throw new errors.InvalidTarget(`resource must be ${tenant.mcpUrl}`);
      }
      return true;
    },
    extraTokenClaims: async (_ctx: KoaContextWithOIDC, token: { accountId?: string }) =>
      mainRealm(accountClaims && firstParty ? await accountClaims(token.accountId ?? '') : { tid: tenant.id }),
  };
}

/** oidc-provider features: revocation, resource indicators bound to the MCP URL, DCR/CIMD or the device flow. */
function featuresSection({ tenant, o, resourceServer }: ProviderParts): Record<string, unknown> {
  const { errors } = oidc;
  const firstParty = tenant.firstParty;
  const firstPartyClients = firstParty ? [firstParty, ...(tenant.moreFirstParty ?? [])] : [];
  // Only an issuer with a first-party client that may use it serves the device endpoints (the platform issuer's CLI).
  const deviceFlow = firstPartyClients.some((c) => c.deviceFlow);
  return {
    devInteractions: { enabled: false },
    introspection: { enabled: false },
    userinfo: { enabled: false },
    revocation: { enabled: true },
    dPoP: { enabled: false },
    pushedAuthorizationRequests: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    deviceFlow: { enabled: deviceFlow, ...devicePages },
    registration: { enabled: !firstParty, initialAccessToken: false },
    registrationManagement: { enabled: !firstParty, rotateRegistrationAccessToken: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => tenant.mcpUrl,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx: KoaContextWithOIDC, resource: string) => {
        if (!sameResource(resource, tenant.mcpUrl)) throw new errors.InvalidTarget(`resource must be ${tenant.mcpUrl}`);
        return resourceServer();
      },
    },
    clientIdMetadataDocument: {
      enabled: !firstParty,
      ack: 'draft-02',
      allowFetch: async (_ctx: unknown, clientId: string) => outboundUrlAllowed(clientId, o.cimd?.lookup),
      allowClient: async () => true,
      cacheDuration: { min: 30, max: 3600 },
    },
  };
}

const ROUTES = {
  authorization: '/authorize',
  token: '/token',
  registration: '/register',
  jwks: '/jwks',
  revocation: '/revoke',
  userinfo: '/userinfo',
  end_session: '/logout',
  introspection: '/introspect',
  pushed_authorization_request: '/par',
  device_authorization: '/device/auth',
  code_verification: '/device',
};

async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut): Promise<void> {
  ctx.type = 'html';
  ctx.set('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
  ctx.body = `<!doctype html><meta charset="utf-8"><title>Authorization error</title><h1>${escapeHtml(String(out.error ?? 'error'))}</h1><p>${escapeHtml(String(out.error_description ?? ''))}</p>`;
}

/**
 * The default prompts plus a login check that only an interaction's own login result
 * satisfies: every authorization asks for the password (an existing session is not reused).
 */
function freshLoginPolicy() {
  const { base, Check } = oidc.interactionPolicy;
  const policy = base();
  policy
    .get('login')
    ?.checks.add(
      new Check('fresh_login', 'sign-in is required for every authorization', 'login_required', (ctx) => !ctx.oidc.result?.login),
    );
  return policy;
}
