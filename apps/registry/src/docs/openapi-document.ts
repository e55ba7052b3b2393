import { z } from 'zod';
import { putLimitsBody } from '../limits/limits.controller';
import { callsQuery, usageQuery } from '../usage/usage.controller';
import { readinessBody } from '../readiness/readiness-body';
import { connectorBody, tenantAuthBody } from '../tenant-auth/tenant-auth-body';
import { requiredRole } from '../tenants/roles';
import { readinessReportSchema } from '../readiness/readiness-report-schema';
import { updateKeyBody, updateAdminBody, adminBody, approveBody, createKeyBody, createServerBody, createTenantBody, publishBody, unpublishBody, updateServerBody, updateTenantBody, verifyLoginBody, checkServerBody } from '../http/schemas';

type Op = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  auth: 'tenant' | 'operator' | 'internal' | 'none';
  body?: z.ZodType;
  status?: number;
  response?: Record<string, unknown>;
  optionalBody?: boolean;
  query?: Array<{ name: string; description: string; required?: boolean }>;
  /** Extra documented answers (status → description). */
  also?: Record<string, string>;
};

const HINTS = ['readOnlyHint', 'destructiveHint', 'openWorldHint'];
const missingHintsSchema = { type: 'array', items: { type: 'string', enum: HINTS }, description: 'Required hint annotations the (upstream) definition does not declare' };
const countsSchema = {
  type: 'object',
  properties: { tools: { type: 'integer' }, prompts: { type: 'integer' }, resources: { type: 'integer' }, resourceTemplates: { type: 'integer' } },
  required: ['tools', 'prompts', 'resources', 'resourceTemplates'],
};
const discoverySchema = {
  type: 'object',
  description: 'Discovery progress: queued → running (attempt n) → ok (counts) | error (reason); a failed attempt that will be retried is queued again with its error',
  properties: {
    state: { type: 'string', enum: ['queued', 'running', 'ok', 'error'] },
    jobId: { type: 'string' },
    attempt: { type: 'integer', minimum: 1 },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time' },
    error: { type: 'string' },
    counts: countsSchema,
  },
  required: ['state'],
};
const serverSchema = {
  type: 'object',
  description: 'A server (never its secret)',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    health: { type: 'string', enum: ['pending', 'ok', 'error'] },
    lastError: { type: ['string', 'null'] },
    lastDiscoveredAt: { type: ['string', 'null'], format: 'date-time' },
    protocol: { type: ['object', 'null'] },
    discovery: discoverySchema,
  },
  required: ['id', 'name', 'url', 'health', 'discovery'],
  additionalProperties: true,
};
const adminSchema = {
  type: 'object',
  properties: {
    username: { type: 'string' },
    name: { type: ['string', 'null'] },
    role: { type: 'string', enum: ['owner', 'admin', 'publisher', 'viewer'] },
    createdAt: { type: 'string', format: 'date-time' },
    lastLoginAt: { type: ['string', 'null'], format: 'date-time' },
    disabled: { type: 'boolean' },
  },
  required: ['username', 'name', 'createdAt', 'lastLoginAt', 'disabled'],
};
const diffSchema = {
  type: 'array',
  description: 'Approved → discovered, at JSON-pointer paths (arrays compared whole); a removed item is one {path: "", op: "removed"} row',
  items: {
    type: 'object',
    properties: { path: { type: 'string', examples: ['/inputSchema/properties/limit/maximum'] }, op: { type: 'string', enum: ['added', 'removed', 'changed'] }, before: {}, after: {} },
    required: ['path', 'op'],
  },
};
const patternsSchema = {
  type: 'array',
  description: "Regexes of the tool's inputSchema the gateway's linear-time engine (RE2) cannot run; publishing and approving refuse the tool",
  items: { type: 'object', properties: { pointer: { type: 'string', examples: ['/inputSchema/properties/code/pattern'] }, pattern: { type: 'string' }, reason: { type: 'string' } }, required: ['pointer', 'pattern', 'reason'] },
};
const HINTS_400 = 'PATTERN_UNSUPPORTED: a tool\'s inputSchema has a regex RE2 cannot run (backreference, lookaround); field = body.items.N.name (approve: body.name), details.issues = [{field, message, tool, pointer, pattern, reason}]. HINTS_REQUIRED: a tool lacks readOnlyHint, destructiveHint or openWorldHint (upstream annotations merged with overrides.annotations); field = body.items.N.overrides.annotations.<hint>, details.issues lists every missing hint';

/** Query parameters of a zod object schema, documented from its keys. */
function queryParams(schema: z.ZodObject): Array<{ name: string; description: string }> {
  return Object.keys(schema.shape).map((name) => ({ name, description: `see ${name} in the README's usage section` }));
}

const OPS: Op[] = [
  { method: 'post', path: '/v1/tenants', summary: 'Create a tenant, its first API key and (optional `admin`) its first console admin (operator)', auth: 'operator', body: createTenantBody, status: 201 },
  { method: 'get', path: '/v1/tenants', summary: 'List tenants (operator)', auth: 'operator' },
  { method: 'get', path: '/v1/tenant', summary: "The calling tenant, its MCP URL and the `claude mcp add` line", auth: 'tenant' },
  { method: 'patch', path: '/v1/tenant', summary: 'Update profile, origins, hosts and per-surface settings', auth: 'tenant', body: updateTenantBody },
  {
    method: 'get',
    path: '/v1/limits',
    summary: "The tenant's rate plan (limits.rate: tenant budget, per-caller limit, per-tool overrides, daily quota of tools/call; null = operator defaults) and call-log policy (limits.callLog)",
    auth: 'tenant',
  },
  {
    method: 'put',
    path: '/v1/limits',
    summary: 'Set the rate plan (rate: null clears it) and/or call-log policy; pushed to every gateway at once with the tenant document. Gateways cap values at their operator ceilings',
    auth: 'tenant',
    body: putLimitsBody,
  },
  {
    method: 'get',
    path: '/v1/usage',
    summary: 'Usage rollups (calls, errors, tool errors, rate-limited, bytes in/out, average latency and a latency histogram) per day × server × tool × subject, or summed by groupBy; format=csv downloads them (next page offset in X-Next-Offset)',
    auth: 'tenant',
    query: queryParams(usageQuery),
  },
  {
    method: 'get',
    path: '/v1/calls',
    summary: 'The call log (tools/call, resources/read, prompts/get), newest first, cursor-paginated (nextCursor); arguments/results only when limits.callLog opts in, redacted',
    auth: 'tenant',
    query: queryParams(callsQuery),
  },
  {
    method: 'get',
    path: '/v1/tenant/auth',
    summary: 'OAuth settings of the tenant: protection, scopes, default and per-tool scopes, the enterprise IdP and connectors per server (secrets never shown: `clientSecretSet`)',
    auth: 'tenant',
  },
  {
    method: 'patch',
    path: '/v1/tenant/auth',
    summary:
      'Change OAuth settings (fields left out stay): `protected` on/off, `scopes`, `defaultScopes`, `toolScopes`, `idp` (`local`, or `oidc` with issuer, clientId, clientSecret — sealed at once; left out keeps the stored one, null removes it). A new IdP issuer is checked first: its `/.well-known/openid-configuration` is fetched through the SSRF guard and must name the same issuer. Audited; a published tenant\'s document reaches every gateway and auth replica at once (`pushed`)',
    auth: 'tenant',
    body: tenantAuthBody,
    also: { '400': 'VALIDATION naming the field (body.idp.issuer when the discovery check fails); URL_REFUSED when the issuer is refused by the SSRF guard' },
  },
  {
    method: 'post',
    path: '/v1/tenant/auth/test-sign-in',
    summary:
      'Start a test sign-in of the saved OIDC IdP (admin): the discovery document and its endpoints pass the SSRF guard, then `url` (open it in the browser; valid 5 minutes) runs an authorization-code + PKCE flow at the tenant\'s live authorization server and returns to /console/auth with `#idp-test=<result>`. 409 when no OIDC IdP is saved or the workspace is not published. Audited',
    auth: 'tenant',
    also: { '409': 'CONFLICT: no OIDC IdP saved, workspace not published, or the auth service URL is unknown (AUTH_PUBLIC_URL)', '400': 'VALIDATION / URL_REFUSED naming idp.issuer' },
  },
  {
    method: 'post',
    path: '/v1/tenant/auth/test-sign-in/result',
    summary: 'Open a test sign-in result (`{ result }` = the `idp-test` fragment value): `{ ok: true, issuer, claims }` (the ID-token claims) or `{ ok: false, issuer, error, errorDescription }` (the IdP\'s error). Audited',
    auth: 'tenant',
    body: z.object({ result: z.string() }),
    also: { '400': 'VALIDATION naming body.result: tampered, of another workspace, or expired' },
  },
  { method: 'get', path: '/v1/connect', summary: 'MCP URL and `claude mcp add --transport http` line', auth: 'tenant' },
  { method: 'get', path: '/v1/keys', summary: 'List API keys (never the keys themselves)', auth: 'tenant' },
  { method: 'post', path: '/v1/keys', summary: 'Create an API key (shown once)', auth: 'tenant', body: createKeyBody, status: 201 },
  { method: 'patch', path: '/v1/keys/{id}', summary: "Change an API key's role (owner / admin / publisher / viewer); audited, effective on its next request", auth: 'tenant', body: updateKeyBody },
  { method: 'delete', path: '/v1/keys/{id}', summary: 'Revoke an API key', auth: 'tenant' },
  {
    method: 'get',
    path: '/v1/session',
    summary: 'Who is calling: the tenant, the signed-in console admin (null for an API key) and how (session cookie, platform token or API key)',
    auth: 'tenant',
    response: {
      type: 'object',
      properties: {
        tenant: { type: 'string' },
        user: { type: ['object', 'null'], properties: { username: { type: 'string' }, name: { type: ['string', 'null'] } } },
        via: { type: 'string', enum: ['session', 'api_key', 'token'] },
        role: { type: 'string', enum: ['owner', 'admin', 'publisher', 'viewer'] },
      },
      required: ['tenant', 'user', 'via', 'role'],
    },
  },
  { method: 'get', path: '/v1/admins', summary: 'Console admins of the tenant (never password hashes)', auth: 'tenant', response: { type: 'object', properties: { admins: { type: 'array', items: adminSchema } } } },
  { method: 'post', path: '/v1/admins', summary: 'Create a console admin (password 12–1024 characters, stored as scrypt); 409 naming body.username when taken', auth: 'tenant', body: adminBody, status: 201, response: adminSchema },
  { method: 'patch', path: '/v1/admins/{username}', summary: "Change a console admin's role (owner / admin / publisher / viewer); 409 when it would demote the last active owner. Audited", auth: 'tenant', body: updateAdminBody, response: adminSchema },
  { method: 'delete', path: '/v1/admins/{username}', summary: 'Disable a console admin (audited): no sign-in, and their sessions and tokens stop working at once', auth: 'tenant', response: adminSchema },
  { method: 'get', path: '/v1/servers', summary: 'List upstream servers with their discovery progress', auth: 'tenant', response: { type: 'object', properties: { servers: { type: 'array', items: serverSchema } } } },
  {
    method: 'post',
    path: '/v1/servers',
    summary: 'Register an upstream server (SSRF-checked) and enqueue discovery (server.discovery.state starts at queued)',
    auth: 'tenant',
    body: createServerBody,
    status: 201,
    response: { type: 'object', properties: { server: serverSchema, discovery: { type: 'object' } } },
  },
  { method: 'get', path: '/v1/servers/{id}', summary: 'One server (health, last error, discovery progress; never its secret)', auth: 'tenant', response: serverSchema },
  { method: 'patch', path: '/v1/servers/{id}', summary: 'Update a server (rediscovered and republished)', auth: 'tenant', body: updateServerBody },
  { method: 'delete', path: '/v1/servers/{id}', summary: 'Delete a server and its publications', auth: 'tenant' },
  {
    method: 'put',
    path: '/v1/servers/{id}/connector',
    summary: "Make the server an enterprise connector: calls carry each user's own token from the auth service's vault, obtained with this OAuth client (issuer discovery-checked through the SSRF guard; secret sealed). Audited",
    auth: 'tenant',
    body: connectorBody,
  },
  { method: 'delete', path: '/v1/servers/{id}/connector', summary: 'Stop treating the server as a connector (audited); 409 CONFLICT while it is a published oauth_user server', auth: 'tenant' },
  {
    method: 'post',
    path: '/v1/servers/{id}/connector/link',
    summary:
      "Start linking the tenant admin's own upstream account for the server's connector: returns a one-time linkUrl (at the auth service, expiresIn seconds) to open in a browser; the token is sealed in auth's vault, refreshed there, and used only to discover oauth_user servers. 409 CONNECTOR_NOT_CONFIGURED without a connector; 503 UNAVAILABLE when auth is unreachable. Audited",
    auth: 'tenant',
    response: { type: 'object', properties: { serverId: { type: 'string' }, linkUrl: { type: 'string' }, expiresIn: { type: 'integer' } } },
  },
  {
    method: 'get',
    path: '/v1/servers/{id}/connector/account',
    summary: "Whether the tenant admin's upstream account is linked for this connector (linked, expiresAt, refreshable, updatedAt; never a token)",
    auth: 'tenant',
    response: { type: 'object', properties: { serverId: { type: 'string' }, linked: { type: 'boolean' }, expiresAt: { type: 'integer' }, refreshable: { type: 'boolean' }, updatedAt: { type: 'integer' } } },
  },
  { method: 'delete', path: '/v1/servers/{id}/connector/account', summary: "Unlink the tenant admin's upstream account (404 when none is linked). Audited", auth: 'tenant' },
  { method: 'post', path: '/v1/servers/{id}/discover', summary: 'Enqueue a discovery job', auth: 'tenant', status: 202 },
  {
    method: 'post',
    path: '/v1/servers/check',
    summary: 'Live URL validation: SSRF check (400 URL_REFUSED naming body.url), then one discovery pass with the given credential (not stored); ok with era/version/transport/counts, or ok=false with reason auth_required | timeout | unreachable | not_mcp | refused',
    auth: 'tenant',
    body: checkServerBody,
    response: {
      type: 'object',
      properties: {
        ok: { type: 'boolean' },
        reason: { type: 'string', enum: ['auth_required', 'timeout', 'unreachable', 'not_mcp', 'refused'] },
        message: { type: 'string' },
        protocol: { type: 'object' },
        serverInfo: { type: ['object', 'null'] },
        counts: { type: 'object' },
        tools: { type: 'array', items: { type: 'string' } },
        elapsedMs: { type: 'number' },
      },
      required: ['ok', 'elapsedMs'],
    },
  },
  {
    method: 'get',
    path: '/v1/servers/{id}/items',
    summary: 'Discovered tools, resources, templates and prompts with hashes; each tool with the hint annotations its upstream definition lacks (missingHints)',
    auth: 'tenant',
    response: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: { type: 'object', properties: { kind: { type: 'string' }, name: { type: 'string' }, definition: { type: 'object' }, missingHints: missingHintsSchema, unsupportedPatterns: patternsSchema }, required: ['kind', 'name', 'missingHints'], additionalProperties: true },
        },
      },
    },
  },
  { method: 'get', path: '/v1/publications', summary: 'The routing table: exposed name → (server, upstream name)', auth: 'tenant' },
  {
    method: 'post',
    path: '/v1/publications',
    summary: 'Publish items (names checked; every tool needs readOnlyHint, destructiveHint and openWorldHint, upstream or as overrides) and push a new snapshot',
    auth: 'tenant',
    body: publishBody,
    also: { '400': HINTS_400 },
  },
  { method: 'post', path: '/v1/publications/unpublish', summary: 'Unpublish items and push a new snapshot', auth: 'tenant', body: unpublishBody },
  { method: 'post', path: '/v1/publish', summary: 'Recompile and push the current snapshot', auth: 'tenant' },
  {
    method: 'get',
    path: '/v1/changes',
    summary: 'Discovered changes of published items held for review, each with a structured diff and the hints the new definition lacks',
    auth: 'tenant',
    response: {
      type: 'object',
      properties: {
        changes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              serverId: { type: 'string' },
              kind: { type: 'string' },
              name: { type: 'string' },
              exposedName: { type: 'string' },
              change: { type: 'string', enum: ['modified', 'removed'] },
              published: { type: 'object' },
              discovered: { type: ['object', 'null'] },
              diff: diffSchema,
              missingHints: missingHintsSchema,
              unsupportedPatterns: patternsSchema,
            },
            required: ['serverId', 'kind', 'name', 'change', 'diff', 'missingHints'],
          },
        },
      },
    },
  },
  { method: 'post', path: '/v1/changes/approve', summary: 'Approve one held change and publish', auth: 'tenant', body: approveBody },
  { method: 'get', path: '/v1/preview', summary: 'What each surface receives (query: surface, version)', auth: 'tenant' },
  {
    method: 'post',
    path: '/v1/preview',
    summary:
      'Draft preview: what each surface would receive if this publication (the POST /v1/publications body) were published now (query: surface, version). Same name and hint checks and compile as publishing; nothing is written',
    auth: 'tenant',
    body: publishBody,
    also: { '400': HINTS_400 },
  },
  { method: 'get', path: '/v1/snapshots', summary: 'Immutable snapshots (version = content hash)', auth: 'tenant' },
  { method: 'get', path: '/v1/audit', summary: 'Audit log of every change', auth: 'tenant' },
  {
    method: 'post',
    path: '/v1/tenants/{tenant}/readiness',
    summary: 'Connector readiness check: replays what Claude and ChatGPT do against the MCP URL (or body.url) and reports each step as pass / fail / warn / skip with the reason and the fix',
    auth: 'tenant',
    body: readinessBody,
    response: readinessReportSchema,
    optionalBody: true,
  },
  { method: 'get', path: '/internal/catalogs', summary: 'Every published catalog, credentials sealed (gateways)', auth: 'internal' },
  { method: 'get', path: '/internal/catalogs/{tenant}', summary: "One tenant's published catalog (gateways)", auth: 'internal' },
  {
    method: 'post',
    path: '/internal/console/verify-login',
    summary:
      "Console password check for the platform issuer: 200 {ok: true, tenant, username, name}, or 401 {ok: false} alike for unknown tenant, unknown user, disabled admin and wrong password (same timing); updates lastLoginAt",
    auth: 'internal',
    body: verifyLoginBody,
    response: { type: 'object', properties: { ok: { const: true }, tenant: { type: 'string' }, username: { type: 'string' }, name: { type: 'string' } }, required: ['ok', 'tenant', 'username', 'name'] },
  },
  {
    method: 'get',
    path: '/console/auth.json',
    summary: 'Whether console sign-in through the platform OAuth issuer is configured (CONSOLE_ISSUER), and where it starts',
    auth: 'none',
    response: { type: 'object', properties: { oauth: { type: 'boolean' }, loginUrl: { const: '/console/login' } }, required: ['oauth', 'loginUrl'] },
  },
  {
    method: 'get',
    path: '/console/login',
    summary:
      "Starts console sign-in (BFF): 302 to the platform issuer's authorization endpoint (code, PKCE S256, scope console, resource = <public URL>/v1, login_hint = workspace) with the state in a sealed HttpOnly cookie sb_console_login (Path=/console, 10 min); 404 when CONSOLE_ISSUER is not set",
    auth: 'none',
    status: 302,
    query: [
      { name: 'workspace', description: 'Tenant id to prefill at the issuer (login_hint)' },
      { name: 'returnTo', description: 'Console hash route to land on after sign-in, e.g. #/tools' },
    ],
  },
  {
    method: 'get',
    path: '/console/callback',
    summary:
      'OAuth redirect URI: checks state and iss, redeems the code, verifies the access token and the admin, sets the sealed session cookie sb_console (HttpOnly, SameSite=Strict, 8 h) and 302s to /console/<returnTo>. Any failure: 302 to /console/?signin_error=access_denied|state_mismatch|token_rejected|unavailable',
    auth: 'none',
    status: 302,
    query: [
      { name: 'code', description: 'Authorization code' },
      { name: 'state', description: 'Must match the sign-in cookie' },
      { name: 'iss', description: 'RFC 9207 issuer; must equal CONSOLE_ISSUER when present' },
      { name: 'error', description: 'OAuth error from the issuer (access_denied, …)' },
    ],
  },
  { method: 'post', path: '/console/logout', summary: 'Clears the console session cookie', auth: 'none', status: 204 },
  { method: 'get', path: '/health', summary: 'Liveness and Postgres/Redis readiness', auth: 'none' },
];

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        field: { type: 'string' },
        issues: { type: 'array', description: 'Every problem (validation, HINTS_REQUIRED)', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
      },
      required: ['code', 'message'],
    },
  },
};

/** The OpenAPI 3.1 document of the admin API, with request bodies generated from the zod schemas that validate them. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPS) {
    const params: Array<Record<string, unknown>> = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    for (const q of op.query ?? []) params.push({ name: q.name, in: 'query', required: q.required ?? false, description: q.description, schema: { type: 'string' } });
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: op.summary,
      // The least role (of the calling admin or API key) the route needs: 403 FORBIDDEN below it.
      ...(op.auth === 'tenant' ? { 'x-required-role': requiredRole(op.method, op.path.replace(/\{(\w+)\}/g, ':$1')) } : {}),
      ...(op.auth === 'none' ? { security: [] } : { security: [{ [op.auth]: [] }] }),
      ...(params.length ? { parameters: params } : {}),
      ...(op.body ? { requestBody: { required: !op.optionalBody, content: { 'application/json': { schema: z.toJSONSchema(op.body, { io: 'input', unrepresentable: 'any' }) } } } } : {}),
      responses: {
        [String(op.status ?? 200)]: op.response ? { description: 'OK', content: { 'application/json': { schema: op.response } } } : { description: op.status === 302 ? 'Redirect' : 'OK' },
        ...Object.fromEntries(Object.entries(op.also ?? {}).map(([status, description]) => [status, { description, content: { 'application/json': { schema: errorSchema } } }])),
        '4XX': { description: 'Bad input (the field is named), unauthenticated, not found or conflict', content: { 'application/json': { schema: errorSchema } } },
        '503': { description: 'Postgres unavailable; retry after Retry-After seconds', content: { 'application/json': { schema: errorSchema } } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Switchboard registry admin API', version: '0.1.0', description: 'Tenants register MCP servers, review discovery, publish per-surface catalogs.' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        tenant: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Each API key and console admin has a role: viewer reads; publisher reviews and publishes; admin changes servers, settings, auth and limits; owner manages admins and keys (x-required-role on each operation). Tenant API key (sbk_…), or a platform access token (JWT from CONSOLE_ISSUER: ES256, typ at+jwt, aud <public URL>/v1, scope console, tid), or the console session cookie sb_console together with the header x-switchboard-console: 1 (403 without it)',
        },
        operator: { type: 'http', scheme: 'bearer', description: 'REGISTRY_OPERATOR_KEY' },
        internal: { type: 'http', scheme: 'bearer', description: 'INTERNAL_TOKEN (gateways)' },
      },
    },
    paths,
  };
}
