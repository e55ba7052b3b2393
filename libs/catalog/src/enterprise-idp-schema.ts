import { z } from 'zod';

/** RFC 6749 §3.3 scope token. */
const scope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, 'must be an RFC 6749 scope token');
/** A JWT claim name (top level; no paths): what the subject and the groups are read from. */
const claimName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/, 'must be a claim name (letters, digits, _ . : -; at most 64)');

/** The MCP ext-auth extension identifier a tenant that trusts an enterprise IdP declares in `server/discover`. */
export const ENTERPRISE_MANAGED_AUTHORIZATION = 'io.modelcontextprotocol/enterprise-managed-authorization';

/** How many enterprise IdPs, clients per IdP and mapped groups a tenant may list (bounds every replica's copy). */
export const ENTERPRISE_IDP_LIMITS = { idps: 8, allowedClients: 100, groups: 200 } as const;

/**
 * One enterprise IdP a tenant trusts for Enterprise-Managed Authorization (MCP ext-auth
 * `io.modelcontextprotocol/enterprise-managed-authorization`, draft-ietf-oauth-identity-assertion-authz-grant):
 * its ID-JAGs (`typ` `oauth-id-jag+jwt`) are accepted at the tenant's token endpoint with the
 * JWT-bearer grant. Only the listed clients may present them; the subject comes from
 * `subjectClaim`; with `groupScopes`, only users in a mapped group get a token, and only the
 * scopes their groups map to.
 */
export const enterpriseIdpSchema = z
  .object({
    /** The IdP's issuer identifier: the ID-JAG `iss` must equal it. */
    issuer: z.url({ protocol: /^https?$/ }).max(2048),
    /** Where the IdP publishes its signing keys (fetched through the SSRF guard, cached). */
    jwksUri: z.url({ protocol: /^https?$/ }).max(2048),
    /** Client ids at this tenant's authorization server (DCR ids or CIMD URLs) that may present this IdP's ID-JAGs. */
    allowedClients: z.array(z.string().min(1).max(2048)).min(1).max(ENTERPRISE_IDP_LIMITS.allowedClients),
    /** The ID-JAG claim that names the user (its value becomes `<tenant>|<idp-id>|<value>`). */
    subjectClaim: claimName.default('sub'),
    /** The ID-JAG claim that lists the user's groups (an array of strings). */
    groupsClaim: claimName.default('groups'),
    /** Group → scopes. Empty ⇒ every user of the IdP may get the tenant's scopes; otherwise only members of a listed group, with that group's scopes. */
    groupScopes: z
      .record(z.string().min(1).max(256), z.array(scope).min(1).max(32))
      .refine((r) => Object.keys(r).length <= ENTERPRISE_IDP_LIMITS.groups, `at most ${ENTERPRISE_IDP_LIMITS.groups} groups`)
      .default({}),
  })
  .strict();

/** The tenant's trusted enterprise IdPs: at most ENTERPRISE_IDP_LIMITS.idps, issuers unique. */
export const enterpriseIdpsSchema = z
  .array(enterpriseIdpSchema)
  // A refinement, not .max(): generated API types would spell out every tuple length up to the bound.
  .refine((list) => list.length <= ENTERPRISE_IDP_LIMITS.idps, `at most ${ENTERPRISE_IDP_LIMITS.idps} enterprise IdPs`)
  .refine((list) => new Set(list.map((i) => i.issuer.replace(/\/+$/, ''))).size === list.length, 'issuers must be unique');

export type EnterpriseIdp = z.infer<typeof enterpriseIdpSchema>;
