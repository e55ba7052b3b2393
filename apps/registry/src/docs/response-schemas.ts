import { z } from 'zod';
import { ROLES } from '../model/roles';

/**
 * Answers of the admin API as zod schemas: the OpenAPI document's response components, and
 * through them the generated admin API types (`libs/admin-api`). Each named one
 * becomes a component of that name; the rest are inlined where they are used.
 */
export const namedSchemas = new Map<string, z.ZodType>();

function named<S extends z.ZodType>(id: string, description: string, schema: S): S {
  // describe() returns a copy: that copy is the one routes name, so it is the one registered.
  const described = schema.describe(description) as S;
  namedSchemas.set(id, described);
  return described;
}

const dateTime = z.string().meta({ format: 'date-time' });
const role = z.enum(ROLES);
const json = z.record(z.string(), z.unknown());

export const authConfigSchema = named(
  'AuthConfig',
  'Whether console sign-in through the platform OAuth issuer is configured, and where it starts',
  z.object({ oauth: z.boolean(), loginUrl: z.string() }),
);

export const sessionInfoSchema = named(
  'SessionInfo',
  'Who is calling: the tenant, the signed-in console admin (null for an API key) and how',
  z.object({
    tenant: z.string(),
    user: z.object({ username: z.string(), name: z.string().nullable().optional() }).nullable(),
    via: z.enum(['session', 'api_key', 'token']),
    /** The caller's role (absent on registries without roles). */
    role: role.optional(),
  }),
);

export const connectInfoSchema = named(
  'ConnectInfo',
  'The MCP URL and the `claude mcp add --transport http` line',
  z.object({ mcpUrl: z.string(), claudeCommand: z.string() }),
);

export const tenantSchema = named(
  'Tenant',
  'A tenant with its MCP URL',
  z.intersection(
    connectInfoSchema,
    z.object({ id: z.string(), name: z.string(), description: z.string().nullable(), currentVersion: z.string().nullable() }),
  ),
);

export const tenantSettingsSchema = named(
  'TenantSettings',
  '`GET /v1/tenant`: the tenant with its settings (`PATCH /v1/tenant` answers the same, plus `published` when it republished)',
  z.intersection(
    tenantSchema,
    z.object({
      instructions: z.string().nullable().optional(),
      origins: z.array(z.string()).optional(),
      hosts: z.array(z.string()).optional(),
      surfaceRules: json.nullable().optional(),
    }),
  ),
);

export const authModeSchema = named(
  'AuthMode',
  'How the registry and gateways authenticate to an upstream server',
  z.enum(['none', 'bearer', 'header', 'oauth_client_credentials', 'oauth_user']),
);

const counts = z.record(z.string(), z.number());

export const discoverySchema = named(
  'Discovery',
  'Discovery progress: queued → running (attempt n) → ok (counts) | error (reason); a failed attempt that will be retried is queued again with its error',
  z.object({
    state: z.enum(['queued', 'running', 'ok', 'error']),
    jobId: z.string().optional(),
    attempt: z.number().int().optional(),
    startedAt: dateTime.nullable().optional(),
    finishedAt: dateTime.nullable().optional(),
    error: z.string().nullable().optional(),
    counts: counts.nullable().optional(),
  }),
);

export const serverSchema = named(
  'Server',
  'An upstream server (never its secret: `auth.hasSecret`)',
  z.object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    transport: z.string(),
    auth: z.object({
      mode: authModeSchema,
      hasSecret: z.boolean(),
      header: z.string().optional(),
      tokenUrl: z.string().optional(),
      clientId: z.string().optional(),
      scope: z.string().optional(),
      audience: z.string().optional(),
      authorizationServer: z.string().optional(),
    }),
    toolPrefix: z.string().nullable().optional(),
    timeoutMs: z.number().nullable().optional(),
    maxConcurrency: z.number().nullable().optional(),
    stateful: z.boolean().optional(),
    /** The "dynamic resources" publication setting (null = off). */
    dynamicResources: z
      .object({ uriPrefixes: z.array(z.string()) })
      .nullable()
      .optional(),
    health: z.enum(['pending', 'ok', 'error']),
    lastError: z.string().nullable(),
    lastDiscoveredAt: dateTime.nullable(),
    protocol: z
      .object({ era: z.enum(['modern', 'legacy']), version: z.string().nullable(), transport: z.string().nullable() })
      .nullable()
      .optional(),
    /** Present on registries that report discovery progress. */
    discovery: discoverySchema.nullable().optional(),
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
);

export const enqueuedSchema = named(
  'Enqueued',
  'A discovery job enqueued, or recorded as pending while the job queue is unavailable',
  z.object({ queued: z.boolean(), jobId: z.string().optional(), pending: z.boolean().optional(), reason: z.string().optional() }),
);

const hint = z.enum(['readOnlyHint', 'destructiveHint', 'openWorldHint']);
const missingHints = z.array(hint).describe('Required hint annotations the (upstream) definition does not declare');

export const unsupportedPatternSchema = named(
  'UnsupportedPattern',
  "A regex of the tool's inputSchema the gateway's linear-time engine (RE2) cannot run; publishing and approving refuse the tool",
  z.object({ pointer: z.string(), pattern: z.string(), reason: z.string() }),
);

export const poisonFindingSchema = named(
  'PoisonFinding',
  'A poisoned-tool warning from discovery (docs/guardrails.md): the rule, its severity, the JSON pointer of the text and an excerpt with invisible characters shown as \\u{…}; publishing needs acknowledgeFindings: true',
  z.object({
    id: z.string(),
    rule: z.string(),
    severity: z.enum(['high', 'medium']),
    pointer: z.string(),
    message: z.string(),
    excerpt: z.string(),
  }),
);

export const toolProblemSchema = named(
  'ToolProblem',
  'A per-tool rule the tool breaks with its saved overrides (the rules publishing and Readiness apply): block = publishing refuses it, warn = Readiness fails it once live; field = the editor field that fixes it',
  z.object({
    rule: z.enum(['hints-required', 'title', 'findings']),
    level: z.enum(['block', 'warn']),
    field: z.enum(['readOnlyHint', 'destructiveHint', 'openWorldHint', 'title', 'findings']),
    message: z.string(),
  }),
);

export const itemSchema = named(
  'Item',
  'A discovered tool, prompt, resource or resource template, with its hash and publication state',
  z.object({
    kind: z.enum(['tool', 'prompt', 'resource', 'resource_template']),
    name: z.string(),
    definition: json,
    contentHash: z.string(),
    firstSeenAt: dateTime.optional(),
    lastSeenAt: dateTime.optional(),
    removedAt: dateTime.nullable(),
    exposedName: z.string().nullable(),
    pendingReview: z.boolean().nullable(),
    missingHints: missingHints.optional(),
    unsupportedPatterns: z.array(unsupportedPatternSchema).optional(),
    findings: z.array(poisonFindingSchema).optional(),
    problems: z.array(toolProblemSchema).optional(),
  }),
);

export const annotationOverridesSchema = named(
  'AnnotationOverrides',
  "Tool annotations set over the upstream's",
  z.object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  }),
);

export const toolOverridesSchema = named(
  'ToolOverrides',
  "Title, description and annotations set over the upstream's",
  z.object({ title: z.string().optional(), description: z.string().optional(), annotations: annotationOverridesSchema.optional() }),
);

export const publicationSchema = named(
  'Publication',
  'One row of the routing table: exposed name → (server, upstream name)',
  z.object({
    kind: z.string(),
    exposedName: z.string(),
    serverId: z.string(),
    upstreamName: z.string(),
    overrides: toolOverridesSchema.nullable(),
  }),
);

export const diffEntrySchema = named(
  'DiffEntry',
  'Approved → discovered at a JSON-pointer path (arrays compared whole); a removed item is one {path: "", op: "removed"} row',
  z.object({
    path: z.string(),
    op: z.enum(['added', 'removed', 'changed']),
    before: z.unknown().optional(),
    after: z.unknown().optional(),
  }),
);

export const changeSchema = named(
  'Change',
  'A discovered change of a published item, held for review',
  z.object({
    serverId: z.string(),
    kind: z.string(),
    name: z.string(),
    exposedName: z.string(),
    change: z.enum(['modified', 'removed']),
    published: json.nullable(),
    discovered: json.nullable(),
    diff: z.array(diffEntrySchema).optional(),
    missingHints: missingHints.optional(),
    unsupportedPatterns: z.array(unsupportedPatternSchema).optional(),
    findings: z.array(poisonFindingSchema).optional(),
  }),
);

export const adminSchema = named(
  'Admin',
  'A console admin (never the password hash)',
  z.object({
    username: z.string(),
    name: z.string().nullable().optional(),
    role: role.optional(),
    createdAt: dateTime.nullable().optional(),
    lastLoginAt: dateTime.nullable().optional(),
    /** Access removed (`DELETE /v1/admins/:username` disables; the row stays for the audit trail). */
    disabled: z.boolean().optional(),
  }),
);

export const surfacePreviewSchema = named(
  'SurfacePreview',
  'What one surface (client profile) receives',
  z.object({ profile: z.object({ id: z.string(), label: z.string() }), tools: z.array(json), prompts: z.array(json) }),
);

export const previewSchema = named(
  'Preview',
  'What each surface receives (live), or would receive if the draft were published',
  z.object({
    version: z.string(),
    protocolVersion: z.string(),
    /** Live preview: the gateway serves exactly this. Draft preview: publishing the draft would change nothing. */
    live: z.boolean(),
    /** Set on a draft preview (`POST /v1/preview`): nothing of it is live until published. */
    draft: z.boolean().optional(),
    /** Draft preview: the snapshot gateways serve now (null before the first publish). */
    liveVersion: z.string().nullable().optional(),
    surfaces: z.record(z.string(), surfacePreviewSchema),
    /** URI prefixes servers publish as "dynamic resources": unlisted URIs under them are read from that server. */
    dynamicResources: z.array(z.object({ serverId: z.string(), uriPrefix: z.string() })).optional(),
    /** MCP Apps (`io.modelcontextprotocol/ui`): tools with a UI view, the views, and which clients of each surface get them. */
    mcpApps: z
      .object({
        extension: z.string(),
        tools: z.array(z.object({ name: z.string(), resourceUri: z.string() })),
        resources: z.array(
          z.object({
            uri: z.string(),
            serverId: z.string().nullable(),
            upstreamUri: z.string().nullable(),
            mimeType: z.string().nullable(),
          }),
        ),
        surfaces: z.array(z.object({ id: z.string(), label: z.string(), audience: z.enum(['every-client', 'declaring-clients']) })),
      })
      .optional(),
  }),
);

export const auditEntrySchema = named(
  'AuditEntry',
  'One audited change',
  z.object({
    id: z.union([z.string(), z.number()]),
    actor: z.string(),
    action: z.string(),
    target: z.string().nullable(),
    details: json,
    at: dateTime,
  }),
);

const urlWarnings = z
  .array(z.object({ code: z.literal('URL_ALREADY_REGISTERED'), field: z.string(), message: z.string() }))
  .optional()
  .describe(
    'The URL is already registered by another server of the tenant (registering would serve its tools twice, colliding names prefixed)',
  );

export const urlCheckResultSchema = named(
  'UrlCheckResult',
  '`POST /v1/servers/check`: what answered at a URL (nothing is stored), or why nothing usable did',
  z.discriminatedUnion('ok', [
    z.object({
      ok: z.literal(true),
      protocol: z.object({ era: z.enum(['modern', 'legacy']), version: z.string().nullable(), transport: z.string() }),
      serverInfo: z.object({ name: z.string().optional(), version: z.string().optional() }).nullable(),
      counts,
      /** The first tool names (at most 10). */
      tools: z.array(z.string()),
      elapsedMs: z.number(),
      warnings: urlWarnings,
    }),
    z.object({
      ok: z.literal(false),
      reason: z.enum(['auth_required', 'timeout', 'unreachable', 'not_mcp', 'refused']),
      message: z.string(),
      elapsedMs: z.number(),
      warnings: urlWarnings,
    }),
  ]),
);

export const apiErrorSchema = named(
  'ApiErrorBody',
  'An error of the admin API: the code, a message naming the field, and every problem in details.issues',
  z.object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
      details: z
        .object({ issues: z.array(z.object({ field: z.string(), message: z.string() })).optional() })
        .catchall(z.unknown())
        .optional(),
    }),
  }),
);
