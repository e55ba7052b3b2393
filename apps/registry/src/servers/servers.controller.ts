import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { checkUrl, NetGuardError, type NetGuardPolicy, type GuardedFetch } from '@switchboard/net-guard';
import { serverSecretAad } from '../crypto/secret-aad';
import { isUniqueViolation, type Queryable, Database } from '../db/database';
import { type DiscoverJobData, DiscoveryQueue } from '../discovery/discovery-queue';
import { markQueued, recordPendingDiscovery } from '../discovery/discovery-state';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { checkServerBody, createServerBody, serverIdParams, updateServerBody, type ServerAuthInput } from '../http/schemas';
import { patternIssues } from '../publishing/pattern-issues';
import { toolProblems, type ToolOverrides } from '../publishing/tool-rules';
import { serversAtUrl, urlWarnings } from './same-url';
import { missingToolHints } from '../publishing/tool-hints';
import { audit } from '../model/audit';
import { checkServerUrl } from './check-server-url';
import { serverView, type ServerRow } from '../model/server-row';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { enqueuedSchema, serverSchema, urlCheckResultSchema } from '../docs/response-schemas';
import { itemsResponse, listServersResponse, serverChangedResponse } from '../docs/route-responses';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { REGISTRY_CONFIG, NET_POLICY, GUARDED_FETCH, LOGGER } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { SecretBox } from '@switchboard/secret-box';
import { Publisher } from '../publishing/publisher';
import type { Logger } from 'pino';

/** Live URL checks answer within this, whatever DISCOVERY_TIMEOUT_MS is (a form is waiting). */
const CHECK_TIMEOUT_MS = 8_000;

/** A tenant's upstream MCP servers: CRUD, discovery triggers and what discovery found. */
@Controller('v1/servers')
@ApiTag('Servers')
export class ServersController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(Publisher) private readonly publisher: Publisher,
    @Inject(DiscoveryQueue) private readonly queue: DiscoveryQueue,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
    @Inject(GUARDED_FETCH) private readonly fetch: GuardedFetch,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Live URL validation for the register form: the SSRF guard (a refusal is a 400 naming
   * `body.url`, as at registration), then one discovery pass with the given credential (used
   * for this request only, never stored or logged). The answer says what spoke there — era,
   * version, transport, tool count — or why nothing usable did (auth required, timeout,
   * unreachable, not MCP). OAuth client-credential and per-user servers are probed without a
   * credential: a 401 still proves an MCP server is there.
   */
  @Post('check')
  @ApiOperation({
    operationId: 'checkServerUrl',
    summary:
      'Live URL validation: SSRF check (400 URL_REFUSED naming body.url), then one discovery pass with the given credential (not stored); ok with era/version/transport/counts, or ok=false with reason auth_required | timeout | unreachable | not_mcp | refused',
    auth: 'tenant',
    body: checkServerBody,
    response: urlCheckResultSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async check(@Tenant() { tenantId }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(checkServerBody, body, 'body');
    await this.guard(input.url, 'body.url');
    const headers: Record<string, string> =
      input.auth.mode === 'bearer'
        ? { authorization: `Bearer ${input.auth.token}` }
        : input.auth.mode === 'header'
          ? { [input.auth.header.toLowerCase()]: input.auth.value }
          : {};
    const timeoutMs = Math.min(CHECK_TIMEOUT_MS, this.config.DISCOVERY_TIMEOUT_MS);
    // The same duplicate-URL warning registering gives, before the form is submitted.
    const warnings = urlWarnings(await serversAtUrl(this.db, tenantId, input.url, input.serverId), undefined);
    const result = await checkServerUrl({ url: input.url, transport: input.transport, headers, fetch: this.fetch, timeoutMs });
    return warnings.length > 0 ? { ...result, warnings } : result;
  }

  @Get()
  @ApiOperation({
    operationId: 'listServers',
    summary: 'List upstream servers with their discovery progress',
    auth: 'tenant',
    response: listServersResponse,
  })
  @UseGuards(TenantGuard)
  async list(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1 ORDER BY id', [tenantId]);
    return { servers: rows.map(serverView) };
  }

  /** Registers a server (URL checked by the SSRF guard) and enqueues its discovery. */
  @Post()
  @ApiOperation({
    operationId: 'createServer',
    summary: 'Register an upstream server (SSRF-checked) and enqueue discovery (server.discovery.state starts at queued)',
    auth: 'tenant',
    body: createServerBody,
    response: serverChangedResponse,
  })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async create(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(createServerBody, body, 'body');
    await this.guard(input.url, 'body.url');
    await this.guardAuth(input.auth);
    const { config, secret } = this.sealAuth(tenantId, input.id, input.auth);
    let sameUrl: Array<{ id: string; name: string }> = [];
    try {
      await this.db.tx(async (q) => {
        // The same endpoint twice serves its tools twice under prefixed names: said in the answer, not refused (two credentials may be intended).
        sameUrl = await serversAtUrl(q, tenantId, input.url);
        await q.query(
          `INSERT INTO registry.servers (tenant_id, id, name, url, transport, auth_mode, auth_config, secret, tool_prefix, timeout_ms, max_concurrency, stateful)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [
            tenantId,
            input.id,
            input.name,
            input.url,
            input.transport,
            input.auth.mode,
            JSON.stringify(config),
            secret,
            input.toolPrefix ?? null,
            input.timeoutMs ?? null,
            input.maxConcurrency ?? null,
            input.stateful,
          ],
        );
        await audit(q, tenantId, actor, 'server.create', input.id, { url: input.url, auth: input.auth.mode });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(409, 'CONFLICT', `body.id: server "${input.id}" already exists`, 'body.id');
      throw err;
    }
    const discovery = await this.enqueue(tenantId, input.id, 'register');
    const warnings = urlWarnings(sameUrl, input.toolPrefix ?? input.id);
    return { server: serverView(await this.load(this.db, tenantId, input.id)), discovery, ...(warnings.length > 0 ? { warnings } : {}) };
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getServer',
    summary: 'One server (health, last error, discovery progress; never its secret)',
    auth: 'tenant',
    params: serverIdParams,
    response: serverSchema,
  })
  @UseGuards(TenantGuard)
  async get(@Tenant() { tenantId }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    return serverView(await this.load(this.db, tenantId, id));
  }

  /** Updates a server; a new URL, transport or credential is rediscovered and republished. */
  @Patch(':id')
  @ApiOperation({
    operationId: 'updateServer',
    summary: 'Update a server (rediscovered and republished)',
    auth: 'tenant',
    body: updateServerBody,
    params: serverIdParams,
    response: serverChangedResponse,
  })
  @UseGuards(TenantGuard)
  async update(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown, @Body() body: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    const input = parseInput(updateServerBody, body, 'body');
    if (input.url !== undefined) await this.guard(input.url, 'body.url');
    if (input.auth !== undefined) await this.guardAuth(input.auth);
    const sealed = input.auth ? this.sealAuth(tenantId, id, input.auth) : undefined;
    await this.db.tx(async (q) => {
      const cur = await this.load(q, tenantId, id);
      if (input.dynamicResources) await refuseOverlappingPrefixes(q, tenantId, id, input.dynamicResources.uriPrefixes);
      await q.query(
        `UPDATE registry.servers SET name = $3, url = $4, transport = $5, auth_mode = $6, auth_config = $7, secret = $8,
           token_secret = CASE WHEN $9 THEN NULL ELSE token_secret END, token_expires_at = CASE WHEN $9 THEN NULL ELSE token_expires_at END,
           tool_prefix = $10, timeout_ms = $11, max_concurrency = $12, stateful = $13, dynamic_resources = $14, updated_at = now()
         WHERE tenant_id = $1 AND id = $2`,
        [
          tenantId,
          id,
          input.name ?? cur.name,
          input.url ?? cur.url,
          input.transport ?? cur.transport,
          input.auth?.mode ?? cur.auth_mode,
          JSON.stringify(sealed?.config ?? cur.auth_config),
          sealed ? sealed.secret : cur.secret,
          sealed !== undefined,
          input.toolPrefix === undefined ? cur.tool_prefix : input.toolPrefix,
          input.timeoutMs === undefined ? cur.timeout_ms : input.timeoutMs,
          input.maxConcurrency === undefined ? cur.max_concurrency : input.maxConcurrency,
          input.stateful ?? cur.stateful,
          input.dynamicResources === undefined ? cur.dynamic_resources : input.dynamicResources,
        ],
      );
      await audit(q, tenantId, actor, 'server.update', id, { fields: Object.keys(input) });
    });
    const row = await this.load(this.db, tenantId, id);
    const rediscover = input.url !== undefined || input.auth !== undefined || input.transport !== undefined;
    const discovery = rediscover ? await this.enqueue(tenantId, id, 'update') : undefined;
    // A changed dynamic-resources setting is a publication of its own (even with no item published yet).
    const published =
      input.dynamicResources !== undefined
        ? await this.publisher.publish(tenantId, actor, `server ${id} dynamic resources`)
        : await this.republishIfUsed(tenantId, id, actor);
    return { server: serverView(row), discovery, published };
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteServer', summary: 'Delete a server and its publications', auth: 'tenant', params: serverIdParams })
  @UseGuards(TenantGuard)
  async remove(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    const used = await this.isPublished(tenantId, id);
    await this.db.tx(async (q) => {
      const rows = await q.query('DELETE FROM registry.servers WHERE tenant_id = $1 AND id = $2 RETURNING id', [tenantId, id]);
      if (rows.length === 0) throw ApiError.notFound('server', id, 'params.id');
      await audit(q, tenantId, actor, 'server.delete', id);
    });
    const published = used ? await this.publisher.publish(tenantId, actor, `server ${id} deleted`) : undefined;
    return { id, deleted: true, published };
  }

  /** Enqueues a discovery now (the repeatable refresh also runs on its own). */
  @Post(':id/discover')
  @ApiOperation({
    operationId: 'discoverServer',
    summary: 'Enqueue a discovery job',
    auth: 'tenant',
    params: serverIdParams,
    response: enqueuedSchema,
  })
  @HttpCode(202)
  @UseGuards(TenantGuard)
  async discover(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.load(this.db, tenantId, id);
    await audit(this.db, tenantId, actor, 'server.discover', id);
    return this.enqueue(tenantId, id, 'manual');
  }

  /** Everything discovery found on the server, with hashes and publication state. */
  @Get(':id/items')
  @ApiOperation({
    operationId: 'listServerItems',
    summary:
      'Discovered tools, resources, templates and prompts with hashes; each tool with the hint annotations its upstream definition lacks (missingHints)',
    auth: 'tenant',
    params: serverIdParams,
    response: itemsResponse,
  })
  @UseGuards(TenantGuard)
  async items(@Tenant() { tenantId }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.load(this.db, tenantId, id);
    const rows = await this.db.query<{
      kind: string;
      definition: unknown;
      removedAt: string | null;
      findings: unknown[] | null;
      overrides: ToolOverrides | null;
      published: boolean;
    }>(
      `SELECT d.kind, d.key AS name, d.definition, d.content_hash AS "contentHash", d.first_seen_at AS "firstSeenAt", d.last_seen_at AS "lastSeenAt",
              d.removed_at AS "removedAt", p.exposed_name AS "exposedName", (p.key IS NOT NULL AND p.approved_hash <> d.content_hash) AS "pendingReview",
              d.findings, p.overrides, (p.key IS NOT NULL) AS published
         FROM registry.discovered_items d
         LEFT JOIN registry.publications p USING (tenant_id, server_id, kind, key)
        WHERE d.tenant_id = $1 AND d.server_id = $2 ORDER BY d.kind, d.key`,
      [tenantId, id],
    );
    // `missingHints`: required hint annotations the upstream definition lacks (the console flags them; publishing needs overrides for them).
    // `unsupportedPatterns`: regexes the gateway's linear-time engine cannot run (publishing refuses the tool).
    // `findings`: poisoned-tool warnings from discovery; publishing a new item needs `acknowledgeFindings: true`.
    // `problems`: the per-tool rules (publishing/tool-rules.ts) judged with the saved overrides, so the console shows the registry's verdict.
    return {
      items: rows.map(({ overrides, published, ...r }) => ({
        ...r,
        missingHints: r.kind === 'tool' ? missingToolHints(r.definition) : [],
        unsupportedPatterns: r.kind === 'tool' ? patternIssues(r.definition) : [],
        problems:
          r.kind === 'tool' && !r.removedAt
            ? toolProblems({ definition: r.definition, overrides: overrides ?? undefined, findings: r.findings?.length ?? 0, published })
            : [],
      })),
    };
  }

  private async load(q: Queryable, tenantId: string, id: string): Promise<ServerRow> {
    const rows = await q.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (!rows[0]) throw ApiError.notFound('server', id, 'params.id');
    return rows[0];
  }

  private async guard(url: string, field: string): Promise<void> {
    try {
      await checkUrl(url, this.policy);
    } catch (err) {
      if (err instanceof NetGuardError) throw new ApiError(400, 'URL_REFUSED', `${field}: ${err.message}`, field, { reason: err.code });
      throw err;
    }
  }

  private async guardAuth(auth: ServerAuthInput): Promise<void> {
    if (auth.mode === 'oauth_client_credentials') await this.guard(auth.tokenUrl, 'body.auth.tokenUrl');
  }

  /** Splits auth input into non-secret settings and the sealed secret. */
  private sealAuth(tenantId: string, serverId: string, auth: ServerAuthInput): { config: Record<string, string>; secret: string | null } {
    const seal = (s: string) => this.box.seal(s, serverSecretAad(tenantId, serverId));
    switch (auth.mode) {
      case 'bearer':
        return { config: {}, secret: seal(auth.token) };
      case 'header':
        return { config: { header: auth.header }, secret: seal(auth.value) };
      case 'oauth_client_credentials': {
        const config: Record<string, string> = { tokenUrl: auth.tokenUrl, clientId: auth.clientId };
        if (auth.scope) config.scope = auth.scope;
        if (auth.audience) config.audience = auth.audience;
        return { config, secret: seal(auth.clientSecret) };
      }
      case 'oauth_user': {
        const config: Record<string, string> = {};
        if (auth.authorizationServer) config.authorizationServer = auth.authorizationServer;
        if (auth.scope) config.scope = auth.scope;
        return { config, secret: null };
      }
      default:
        return { config: {}, secret: null };
    }
  }

  private async enqueue(tenantId: string, serverId: string, reason: DiscoverJobData['reason']) {
    let jobId: string;
    try {
      jobId = await this.queue.enqueue(tenantId, serverId, reason);
    } catch (err) {
      // Recorded in Postgres; the registry enqueues it as soon as Redis is back (RedisReconciler).
      this.logger.warn(
        { tenant: tenantId, server: serverId, err: (err as Error).message },
        'could not enqueue discovery; recorded as pending',
      );
      await recordPendingDiscovery(this.db, tenantId, serverId, reason);
      return {
        queued: false,
        pending: true,
        reason: 'job queue unavailable; the discovery is recorded and will be enqueued when the queue is back',
      };
    }
    // The console shows `queued` at once (the worker moves it to running / ok / error).
    await markQueued(this.db, tenantId, serverId, jobId);
    return { queued: true, jobId };
  }

  private async isPublished(tenantId: string, serverId: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM registry.publications WHERE tenant_id = $1 AND server_id = $2 LIMIT 1', [
      tenantId,
      serverId,
    ]);
    return rows.length > 0;
  }

  private async republishIfUsed(tenantId: string, serverId: string, actor: string) {
    if (!(await this.isPublished(tenantId, serverId))) return undefined;
    return this.publisher.publish(tenantId, actor, `server ${serverId} updated`);
  }
}

/**
 * Each URI must have one owner: a prefix equal to, inside or around another server's prefix of
 * the same tenant is refused (400 naming it) before anything is stored.
 */
async function refuseOverlappingPrefixes(q: Queryable, tenantId: string, serverId: string, prefixes: readonly string[]): Promise<void> {
  const others = await q.query<{ id: string; dynamic_resources: { uriPrefixes: string[] } }>(
    'SELECT id, dynamic_resources FROM registry.servers WHERE tenant_id = $1 AND id <> $2 AND dynamic_resources IS NOT NULL',
    [tenantId, serverId],
  );
  for (const [i, prefix] of prefixes.entries()) {
    for (const other of others) {
      const clash = other.dynamic_resources.uriPrefixes.find((p) => p.startsWith(prefix) || prefix.startsWith(p));
      if (clash !== undefined) {
        const field = `body.dynamicResources.uriPrefixes.${i}`;
        throw new ApiError(
          400,
          'VALIDATION',
          `${field}: "${prefix}" overlaps "${clash}" of server "${other.id}" (each URI must have one owner)`,
          field,
        );
      }
    }
  }
}
