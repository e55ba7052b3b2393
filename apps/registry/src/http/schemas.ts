import { z } from 'zod';
import { DYNAMIC_RESOURCE_LIMITS, dynamicPrefixProblem } from '@switchboard/catalog';
import { forbiddenUpstreamHeader } from '@switchboard/net-guard';
import { PASSWORD_MAX, PASSWORD_MIN } from '../crypto/password-hash';
import { ROLES } from '../model/roles';

/** DNS label, as in the gateway's tenant ids. */
export const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const SERVER_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Exposed tool/prompt names: valid on every surface (MCP 2025-11-25 charset, 64 = the strictest surface). */
export const EXPOSED_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Console admin usernames (e-mail addresses fit). */
export const ADMIN_USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** A console admin's or API key's role. */
const roleSchema = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });

/** A tenant's credential header: a header name, and none of the hop-by-hop / framing / protocol ones (the message names it). */
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
  .superRefine((name, ctx) => {
    const reason = forbiddenUpstreamHeader(name);
    if (reason) ctx.addIssue({ code: 'custom', message: `header ${name} is not allowed: ${reason}` });
  });
/**
 * A secret sent upstream as an HTTP header value: printable ASCII (and tabs), so a pasted line break
 * or non-Latin character is refused here instead of making every later call fail.
 */
export const headerValue = z
  .string()
  .min(1)
  .max(8192)
  .regex(/^[\t\x20-\x7e]*$/, 'must be printable ASCII (it is sent in an HTTP header): no line breaks or non-ASCII characters');

/** A console admin account: username, password (12–1024 characters, stored as an scrypt hash) and display name. */
export const adminBody = z
  .object({
    username: z.string().regex(ADMIN_USERNAME, 'must be 1-64 chars of A-Z a-z 0-9 . _ @ -'),
    password: z
      .string()
      .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
      .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`),
    name: z.string().min(1).max(120).optional(),
    /** owner (default, full power) / admin / publisher / viewer. */
    role: roleSchema.optional(),
  })
  .strict();
export type AdminInput = z.infer<typeof adminBody>;

/** `PATCH /v1/admins/:username`: change an admin's role (owner only; the last active owner cannot be demoted). */
export const updateAdminBody = z.object({ role: roleSchema }).strict();

export const adminParams = z.object({ username: z.string().regex(ADMIN_USERNAME, 'must be an admin username') });

export const createTenantBody = z
  .object({
    id: z.string().regex(TENANT_ID, 'must be a DNS label: 1-63 chars of a-z 0-9 -'),
    name: z.string().min(1).max(120),
    description: z.string().max(2000).optional(),
    /** The tenant's first console admin. */
    admin: adminBody.optional(),
  })
  .strict();

/**
 * The platform issuer's password check. Lengths are bounded (400 naming the field); a tenant id or
 * username of the wrong shape is simply unknown (401), like every other failed sign-in.
 */
export const verifyLoginBody = z
  .object({
    tenant: z.string().min(1).max(63),
    username: z.string().min(1).max(64),
    password: z.string().min(1).max(PASSWORD_MAX),
  })
  .strict();

const surfaceRules = z
  .object({
    clientSurfaces: z.record(z.string(), z.string()).optional(),
    surfaces: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  })
  .strict();

export const updateTenantBody = z
  .object({
    name: z.string().min(1).max(120).optional(),
    description: z.string().max(2000).nullable().optional(),
    instructions: z.string().max(10_000).nullable().optional(),
    origins: z.array(z.string().min(1).max(200)).max(50).optional(),
    hosts: z.array(z.string().min(1).max(253)).max(50).optional(),
    /** Per-surface settings: overrides of the built-in surfaces, custom surfaces, OAuth client → surface. */
    surfaceRules: surfaceRules.optional(),
  })
  .strict();

/** `PATCH /v1/keys/:id`: change an API key's role (owner only). */
export const updateKeyBody = z.object({ role: roleSchema }).strict();
export const createKeyBody = z.object({ name: z.string().min(1).max(100), role: roleSchema.optional() }).strict();

export const authSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('none') }).strict(),
  z.object({ mode: z.literal('bearer'), token: headerValue }).strict(),
  z.object({ mode: z.literal('header'), header: headerName, value: headerValue }).strict(),
  z
    .object({
      mode: z.literal('oauth_client_credentials'),
      tokenUrl: z.url(),
      clientId: z.string().min(1).max(512),
      clientSecret: z.string().min(1).max(8192),
      scope: z.string().max(1000).optional(),
      audience: z.string().max(1000).optional(),
    })
    .strict(),
  /** Per-user OAuth (enterprise connector): declared here, tokens served by the auth service. */
  z.object({ mode: z.literal('oauth_user'), authorizationServer: z.url().optional(), scope: z.string().max(1000).optional() }).strict(),
]);
export type ServerAuthInput = z.infer<typeof authSchema>;

export const createServerBody = z
  .object({
    id: z.string().regex(SERVER_ID, 'must be 1-32 chars of a-z 0-9 _ - (starting with a letter or digit)'),
    name: z.string().min(1).max(120),
    url: z.url().max(2048),
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
    auth: authSchema.default({ mode: 'none' }),
    /** Prefix used when one of this server's tool names collides with another server's. */
    toolPrefix: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,16}$/, 'must be 1-16 chars of A-Z a-z 0-9 _ . -')
      .optional(),
    timeoutMs: z.number().int().min(100).max(600_000).optional(),
    maxConcurrency: z.number().int().min(1).max(10_000).optional(),
    stateful: z.boolean().default(false),
  })
  .strict();

/**
 * A server's "dynamic resources" publication: URIs under these prefixes that no published
 * resource or template matches are read from this server (links its tools return, session
 * resources). null turns it off (the default).
 */
export const dynamicResourcesBody = z
  .object({
    uriPrefixes: z
      .array(
        z.string().superRefine((prefix, ctx) => {
          const problem = dynamicPrefixProblem(prefix);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      )
      .min(1)
      .max(DYNAMIC_RESOURCE_LIMITS.maxPrefixesPerServer)
      .refine((list) => new Set(list).size === list.length, 'must not repeat a prefix'),
  })
  .strict();
export type DynamicResourcesInput = z.infer<typeof dynamicResourcesBody>;

export const updateServerBody = z
  .object({
    name: z.string().min(1).max(120).optional(),
    url: z.url().max(2048).optional(),
    transport: z.enum(['auto', 'streamable-http', 'sse']).optional(),
    auth: authSchema.optional(),
    toolPrefix: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,16}$/, 'must be 1-16 chars of A-Z a-z 0-9 _ . -')
      .nullable()
      .optional(),
    timeoutMs: z.number().int().min(100).max(600_000).nullable().optional(),
    maxConcurrency: z.number().int().min(1).max(10_000).nullable().optional(),
    stateful: z.boolean().optional(),
    dynamicResources: dynamicResourcesBody.nullable().optional(),
  })
  .strict();

/** A live check of a URL before (or without) registering it: nothing is stored. */
export const checkServerBody = z
  .object({
    url: z.url().max(2048),
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
    auth: authSchema.default({ mode: 'none' }),
    /** The server being edited: its own URL is not reported as already registered. */
    serverId: z.string().regex(SERVER_ID, 'must be a server id').optional(),
  })
  .strict();

export const serverIdParams = z.object({ id: z.string().regex(SERVER_ID, 'must be a server id') });

const itemKind = z.enum(['tool', 'prompt', 'resource', 'resource_template']);

export const toolOverrides = z
  .object({
    title: z.string().max(200).optional(),
    description: z.string().max(10_000).optional(),
    annotations: z
      .object({
        title: z.string().max(200).optional(),
        readOnlyHint: z.boolean().optional(),
        destructiveHint: z.boolean().optional(),
        idempotentHint: z.boolean().optional(),
        openWorldHint: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ToolOverrides = z.infer<typeof toolOverrides>;

export const publishBody = z
  .object({
    serverId: z.string().regex(SERVER_ID, 'must be a server id'),
    items: z
      .array(
        z
          .object({
            kind: itemKind.default('tool'),
            /** The upstream's name (tool, prompt), URI (resource) or URI template. */
            name: z.string().min(1).max(2048),
            /** Exposed name (tools and prompts); default: the upstream name, prefixed on collision. */
            exposedName: z.string().max(200).optional(),
            overrides: toolOverrides.optional(),
            /** Publish despite the item's poisoned-tool findings (GET /v1/servers/:id/items `findings`), having reviewed them. */
            acknowledgeFindings: z.boolean().optional(),
          })
          .strict(),
      )
      .min(1)
      .max(1000),
  })
  .strict();
export type PublishInput = z.infer<typeof publishBody>;

export const unpublishBody = z
  .object({
    serverId: z.string().regex(SERVER_ID, 'must be a server id'),
    items: z
      .array(z.object({ kind: itemKind.default('tool'), name: z.string().min(1).max(2048) }).strict())
      .min(1)
      .max(1000),
  })
  .strict();

export const approveBody = z
  .object({
    serverId: z.string().regex(SERVER_ID, 'must be a server id'),
    kind: itemKind.default('tool'),
    name: z.string().min(1).max(2048),
    /** Approve despite the new definition's poisoned-tool findings (GET /v1/changes `findings`), having reviewed them. */
    acknowledgeFindings: z.boolean().optional(),
  })
  .strict();

export const previewQuery = z
  .object({
    surface: z
      .string()
      .regex(/^[a-z0-9-]{1,32}$/, 'must be a surface id')
      .optional(),
    version: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a protocol version like 2025-11-25')
      .default('2025-11-25'),
  })
  .strict();

/**
 * GET /v1/audit: newest first, `cursor` is the `nextCursor` of the page before (an entry id; older
 * entries follow). `action` keeps one action (`server.create`) or a family (`server.*`); `system`
 * `exclude` drops the registry's own entries (discovery runs, reconciliation), which otherwise flood the log.
 */
export const auditQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z
      .string()
      .regex(/^\d{1,18}$/, 'must be the nextCursor of an earlier page')
      .optional(),
    action: z
      .string()
      .regex(/^[a-z_-]{1,32}(\.[a-z_-]{1,48})*(\.\*)?$/, 'must be an action like server.create, or a family like server.*')
      .optional(),
    actor: z.string().min(1).max(200).optional(),
    system: z.enum(['include', 'exclude']).default('include'),
  })
  .strict();
