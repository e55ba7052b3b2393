import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { TENANT_ID } from '../http/schemas';
import { OFFICIAL_META, tenantServerResponse, type ServerResponse } from './tenant-server-json';
import { Database } from '../db/database';
import { REGISTRY_CONFIG } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';

const tenantParams = z.object({ tenant: z.string().regex(TENANT_ID, 'must be a tenant id') });
const nameParams = tenantParams.extend({ serverName: z.string().min(1).max(300) });
const versionParams = nameParams.extend({ version: z.string().min(1).max(255) });

/** The registry API's list filters (unknown ones are ignored, as registry clients send their own). */
const listQuery = z.object({
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  search: z.string().max(200).optional(),
  version: z.string().max(255).optional(),
  updated_since: z.iso.datetime({ offset: true }).optional(),
  include_deleted: z.enum(['true', 'false']).optional(),
});

const serverResponseSchema = z
  .object({ server: z.record(z.string(), z.unknown()), _meta: z.record(z.string(), z.unknown()) })
  .describe('An official MCP Registry ServerResponse');
const serverListSchema = z
  .object({ servers: z.array(serverResponseSchema), metadata: z.object({ count: z.number() }) })
  .describe('An official MCP Registry ServerList');

/** Answers change only when the tenant publishes; registries and scanners may cache them briefly. */
const CACHE_CONTROL = 'public, max-age=60';

/**
 * A read-only MCP Registry API (`/v0.1/servers`, the official format) per tenant, so registries,
 * IDEs and scanners can discover its published MCP endpoint. Served by the registry, which owns the
 * tenant's name, publication time and auth settings; the gateway's hot path stays MCP only.
 */
@Controller('t/:tenant/v0.1/servers')
@ApiTag('MCP Registry API')
export class McpRegistryController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listRegistryServers',
    summary: "The tenant's published MCP endpoint as an MCP Registry ServerList (one server.json; 404 for an unknown tenant)",
    auth: 'none',
    params: tenantParams,
    query: listQuery,
    response: serverListSchema,
  })
  async list(@Param() params: unknown, @Query() query: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const { tenant } = parseInput(tenantParams, params, 'params');
    const q = parseInput(listQuery, query, 'query');
    // One page holds everything this registry has: a cursor can only come from elsewhere.
    if (q.cursor) throw new ApiError(400, 'VALIDATION', 'query.cursor: unknown cursor (this registry answers in one page)', 'query.cursor');
    const entry = await this.entry(tenant);
    const keep =
      entry !== undefined &&
      (q.search === undefined || String(entry.server.name).includes(q.search)) &&
      (q.version === undefined || q.version === 'latest' || q.version === entry.server.version) &&
      (q.updated_since === undefined ||
        new Date(q.updated_since) <= new Date((entry._meta[OFFICIAL_META] as { updatedAt: string }).updatedAt));
    const servers = keep ? [entry] : [];
    reply.header('cache-control', CACHE_CONTROL);
    return { servers, metadata: { count: servers.length } };
  }

  @Get(':serverName/versions')
  @ApiOperation({
    operationId: 'listRegistryServerVersions',
    summary: 'Versions of the tenant server (only the current publication)',
    auth: 'none',
    params: nameParams,
    response: serverListSchema,
  })
  async versions(@Param() params: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const { tenant, serverName } = parseInput(nameParams, params, 'params');
    const entry = await this.named(tenant, serverName);
    reply.header('cache-control', CACHE_CONTROL);
    return { servers: [entry], metadata: { count: 1 } };
  }

  @Get(':serverName/versions/:version')
  @ApiOperation({
    operationId: 'getRegistryServerVersion',
    summary: 'One version of the tenant server (`latest` or the current version)',
    auth: 'none',
    params: versionParams,
    response: serverResponseSchema,
  })
  async version(@Param() params: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const { tenant, serverName, version } = parseInput(versionParams, params, 'params');
    const entry = await this.named(tenant, serverName);
    if (version !== 'latest' && version !== entry.server.version) throw ApiError.notFound('version', version, 'params.version');
    reply.header('cache-control', CACHE_CONTROL);
    return entry;
  }

  private async entry(tenant: string): Promise<ServerResponse | undefined> {
    const entry = await tenantServerResponse(this.db, this.config, tenant);
    if (entry) return entry;
    const exists = await this.db.query('SELECT 1 FROM registry.tenants WHERE id = $1', [tenant]);
    if (exists.length === 0) throw ApiError.notFound('tenant', tenant, 'params.tenant');
    return undefined;
  }

  private async named(tenant: string, serverName: string): Promise<ServerResponse> {
    const entry = await this.entry(tenant);
    if (!entry || entry.server.name !== serverName) throw ApiError.notFound('server', serverName, 'params.serverName');
    return entry;
  }
}
