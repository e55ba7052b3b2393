import { z } from 'zod';
import { enterpriseIdpsSchema } from './enterprise-idp-schema';

/** RFC 6749 §3.3 scope token. */
const scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be an RFC 6749 scope token');
/** A SecretBox blob (`v1.<base64url>`), sealed by the registry under `tenantSecretAad(...)`. */
// libs/secret-box blobs: `v2.<kid>.<base64url>` (key ids, rotation) and the older `v1.<base64url>`.
const sealed = z
  .string()
  .regex(/^(?:v2\.[A-Za-z0-9_-]{1,32}\.|v1\.)[A-Za-z0-9_-]{20,8192}$/, 'must be a sealed secret (v2.<kid>.… or v1.…)');
/** How many scopes / tools / connectors a tenant may list (bounds what every replica holds per tenant). */
export const TENANT_AUTH_LIMITS = { scopes: 32, toolScopes: 1000, connectors: 64 } as const;

const idpSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local') }).strict(),
  z
    .object({
      kind: z.literal('oidc'),
      issuer: z.url({ protocol: /^https?$/ }),
      clientId: z.string().min(1).max(255),
      /** The client secret at the IdP, sealed (AAD `tenantSecretAad(tenant, 'idp')`); absent ⇒ public client with PKCE. */
      clientSecret: sealed.optional(),
      scopes: z.array(scope).max(TENANT_AUTH_LIMITS.scopes).default(['openid', 'email', 'profile']),
    })
    .strict(),
]);

/**
 * How a connector obtains the calling user's upstream token from the user's enterprise identity
 * instead of a linked account (issue 44 item 3). The subject token is an identity assertion the
 * tenant's AS signs for the user (docs/enterprise-upstream-tokens.md); the client's own token never leaves us.
 * - `token_exchange`: RFC 8693 at the connector issuer's token endpoint, with the connector's client.
 * - `cross_app`: an ID-JAG from the enterprise IdP (RFC 8693 at `idpIssuer`), then the RFC 7523
 *   JWT-bearer grant at the connector issuer's token endpoint.
 */
export const connectorGrantSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('token_exchange'),
      /** RFC 8693 `audience` (default: none, the AS decides). */
      audience: z.string().min(1).max(2048).optional(),
      /** RFC 8693 / RFC 8707 `resource` of the upstream. */
      resource: z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('cross_app'),
      idpIssuer: z.url({ protocol: /^https?$/ }).max(2048),
      idpClientId: z.string().min(1).max(255),
      /** Sealed (AAD `tenantSecretAad(tenant, 'connector:<server>:idp')`). */
      idpClientSecret: sealed.optional(),
      /** The ID-JAG's audience: the upstream AS's issuer (default: the connector's issuer). */
      audience: z.string().min(1).max(2048).optional(),
      resource: z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .optional(),
    })
    .strict(),
]);

const connectorSchema = z
  .object({
    issuer: z.url({ protocol: /^https?$/ }),
    clientId: z.string().min(1).max(255),
    /** Sealed client secret (AAD `tenantSecretAad(tenant, 'connector:<server>')`). */
    clientSecret: sealed.optional(),
    scopes: z.array(scope).max(TENANT_AUTH_LIMITS.scopes).default([]),
    /** Set ⇒ tokens come from the user's enterprise identity first; the linked account is the fallback. */
    grant: connectorGrantSchema.optional(),
  })
  .strict();

/**
 * The `auth` part of the tenant document: read by the gateway (resource server) and the auth
 * service (authorization server) from the same document, so both validate it with this schema.
 * Secrets are never names of environment variables: they travel sealed inside the document.
 */
export const tenantAuthSchema = z
  .object({
    /** Protected tenants require a bearer token issued by the tenant's authorization server. */
    protected: z.boolean().default(true),
    /** The MCP scopes this tenant's tokens may carry. */
    scopes: z.array(scope).min(1).max(TENANT_AUTH_LIMITS.scopes).default(['mcp:tools']),
    /** Granted when a client asks for none (defaults to `scopes`). */
    defaultScopes: z.array(scope).min(1).max(TENANT_AUTH_LIMITS.scopes).optional(),
    idp: idpSchema.default({ kind: 'local' }),
    /** Scopes a tool needs (a broader granted scope such as `mcp:tools` satisfies `mcp:tools:write`). */
    toolScopes: z
      .record(z.string().min(1).max(128), z.array(scope).min(1).max(TENANT_AUTH_LIMITS.scopes))
      .refine((r) => Object.keys(r).length <= TENANT_AUTH_LIMITS.toolScopes, `at most ${TENANT_AUTH_LIMITS.toolScopes} tools`)
      .default({}),
    /** Upstream servers (by server id) that get a per-user OAuth token from the auth service's vault. */
    connectors: z
      .record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a server id'), connectorSchema)
      .refine((r) => Object.keys(r).length <= TENANT_AUTH_LIMITS.connectors, `at most ${TENANT_AUTH_LIMITS.connectors} connectors`)
      .default({}),
    /** Accept private-use redirect schemes (`cursor://…`) for native clients. */
    allowPrivateUseRedirects: z.boolean().default(true),
    /** Enterprise IdPs whose ID-JAGs the token endpoint accepts (Enterprise-Managed Authorization). */
    enterpriseIdps: enterpriseIdpsSchema.default([]),
  })
  .strict();

export type TenantAuthSettings = z.infer<typeof tenantAuthSchema>;
export type IdpSettings = TenantAuthSettings['idp'];
export type ConnectorSettings = z.infer<typeof connectorSchema>;
export type ConnectorGrantSettings = z.infer<typeof connectorGrantSchema>;
