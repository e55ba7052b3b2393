import { TENANT_AUTH_LIMITS, enterpriseIdpsSchema } from '@switchboard/catalog';
import { z } from 'zod';

/** RFC 6749 §3.3 scope token. */
const scope = z
  .string()
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be an RFC 6749 scope token (printable ASCII, no spaces or quotes)');
const scopes = z.array(scope).min(1).max(TENANT_AUTH_LIMITS.scopes);
const issuer = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048);
const clientId = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');
/** A client secret as the tenant types it; sealed before it is stored. `null` removes it. */
const clientSecret = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII')
  .nullable();

/**
 * `PATCH /v1/tenant/auth`: every field optional; what is sent replaces, what is left out
 * stays. A first call starts from: not protected, `mcp:tools`, local login. `idp.clientSecret`
 * left out keeps the stored one (it is never shown again).
 */
export const tenantAuthBody = z
  .object({
    protected: z.boolean().optional(),
    scopes: scopes.optional(),
    defaultScopes: scopes.nullable().optional(),
    toolScopes: z
      .record(z.string().min(1).max(128), scopes)
      .refine((r) => Object.keys(r).length <= TENANT_AUTH_LIMITS.toolScopes, `at most ${TENANT_AUTH_LIMITS.toolScopes} tools`)
      .optional(),
    allowPrivateUseRedirects: z.boolean().optional(),
    idp: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('local') }).strict(),
        z.object({ kind: z.literal('oidc'), issuer, clientId, clientSecret: clientSecret.optional(), scopes: scopes.optional() }).strict(),
      ])
      .optional(),
    /** The whole list of trusted enterprise IdPs (ID-JAG): what is sent replaces what is stored; `[]` trusts none. */
    enterpriseIdps: enterpriseIdpsSchema.optional(),
  })
  .strict();
export type TenantAuthInput = z.infer<typeof tenantAuthBody>;

const resource = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048);
const audience = z
  .string()
  .min(1)
  .max(2048)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/**
 * A connector's token source from enterprise identity (see `connectorGrantSchema`): RFC 8693 at
 * the connector's issuer, or cross-app access (ID-JAG from `idpIssuer`, then JWT-bearer at the
 * connector's issuer). `idpClientSecret` left out keeps the stored one for the same IdP client.
 */
export const connectorGrantBody = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('token_exchange'), audience: audience.optional(), resource: resource.optional() }).strict(),
  z
    .object({
      kind: z.literal('cross_app'),
      idpIssuer: issuer,
      idpClientId: clientId,
      idpClientSecret: clientSecret.optional(),
      audience: audience.optional(),
      resource: resource.optional(),
    })
    .strict(),
]);

/** `PUT /v1/servers/:id/connector`: the upstream's own OAuth client for per-user tokens; `grant` left out keeps the stored one, null removes it. */
export const connectorBody = z
  .object({
    issuer,
    clientId,
    clientSecret: clientSecret.optional(),
    scopes: z.array(scope).max(TENANT_AUTH_LIMITS.scopes).default([]),
    grant: connectorGrantBody.nullable().optional(),
  })
  .strict();
export type ConnectorInput = z.infer<typeof connectorBody>;
