import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import { CompiledCatalog } from '@switchboard/catalog';
import { LEGACY_VERSIONS, MODERN_VERSIONS, surfaceProfiles, type ProtocolVersion } from '@switchboard/protocol';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { approveBody, previewQuery, publishBody, unpublishBody } from '../http/schemas';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import type { ServerRow } from '../servers/server-row';
import { audit } from '../tenants/audit';
import { buildSnapshot, loadTenant, type PublicationRow } from './build-snapshot';
import { exposedName } from './exposed-name';

const VERSIONS: readonly string[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

/** Publishing: what is published, publish / unpublish, review of discovered changes, per-surface preview, snapshots. */
@Controller('v1')
export class PublicationsController {
  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  /** The routing table: exposed name → (server, upstream name), with overrides. */
  @Get('publications')
  async list(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    const rows = await this.ctx.db.query(
      `SELECT kind, exposed_name AS "exposedName", server_id AS "serverId", key AS "upstreamName", overrides, approved_hash AS "approvedHash", updated_at AS "updatedAt"
         FROM registry.publications WHERE tenant_id = $1 ORDER BY kind, exposed_name`,
      [tenantId],
    );
    return { publications: rows };
  }

  /**
   * Publishes discovered items of one server (new ones, renames, override changes) and then
   * compiles and pushes a new snapshot. Exposed names are checked here: valid on every
   * surface and unique per tenant; a collision with another server gets the server prefix.
   */
  @Post('publications')
  @HttpCode(200)
  async publish(@Req() req: FastifyRequest, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const input = parseInput(publishBody, body, 'body');
    const names = await this.ctx.db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry-publish:${tenantId}`]);
      const servers = await q.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, input.serverId]);
      const server = servers[0];
      if (!server) throw ApiError.notFound('server', input.serverId, 'body.serverId');
      const existing = await q.query<PublicationRow>('SELECT server_id, kind, key, exposed_name FROM registry.publications WHERE tenant_id = $1', [tenantId]);
      const out: Array<{ kind: string; name: string; exposedName: string }> = [];
      for (const [i, item] of input.items.entries()) {
        const field = `body.items.${i}`;
        const found = await q.query<{ definition: Record<string, unknown>; content_hash: string }>(
          'SELECT definition, content_hash FROM registry.discovered_items WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4 AND removed_at IS NULL',
          [tenantId, server.id, item.kind, item.name],
        );
        if (!found[0]) throw new ApiError(404, 'NOT_FOUND', `${field}.name: ${item.kind} "${item.name}" was not discovered on server "${server.id}"`, `${field}.name`);
        const mine = existing.find((p) => p.server_id === server.id && p.kind === item.kind && p.key === item.name);
        const named = item.kind === 'tool' || item.kind === 'prompt';
        let name: string;
        if (!named) {
          name = item.name;
          if (existing.some((p) => p !== mine && p.kind === item.kind && p.exposed_name === name)) {
            throw new ApiError(409, 'NAME_COLLISION', `${field}.name: ${item.kind} "${name}" is already published by another server`, `${field}.name`);
          }
        } else if (mine && item.exposedName === undefined) {
          name = mine.exposed_name;
        } else {
          const taken = new Set(existing.filter((p) => p !== mine && p.kind === item.kind).map((p) => p.exposed_name));
          name = exposedName({ upstreamName: item.name, explicit: item.exposedName, prefix: server.tool_prefix ?? server.id, taken, field: `${field}.exposedName` });
        }
        if (mine) {
          await q.query('UPDATE registry.publications SET exposed_name = $5, overrides = $6, updated_at = now() WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4', [
            tenantId,
            server.id,
            item.kind,
            item.name,
            name,
            JSON.stringify(item.overrides ?? {}),
          ]);
          mine.exposed_name = name;
        } else {
          await q.query(
            `INSERT INTO registry.publications (tenant_id, server_id, kind, key, exposed_name, approved_hash, approved_definition, overrides)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [tenantId, server.id, item.kind, item.name, name, found[0].content_hash, JSON.stringify(found[0].definition), JSON.stringify(item.overrides ?? {})],
          );
          existing.push({ server_id: server.id, kind: item.kind, key: item.name, exposed_name: name } as PublicationRow);
        }
        out.push({ kind: item.kind, name: item.name, exposedName: name });
      }
      await audit(q, tenantId, actor, 'publication.publish', server.id, { items: out });
      return out;
    });
    const published = await this.ctx.publisher.publish(tenantId, actor, 'publish');
    return { items: names, ...published };
  }

  @Post('publications/unpublish')
  @HttpCode(200)
  async unpublish(@Req() req: FastifyRequest, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const input = parseInput(unpublishBody, body, 'body');
    await this.ctx.db.tx(async (q) => {
      for (const [i, item] of input.items.entries()) {
        const rows = await q.query('DELETE FROM registry.publications WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4 RETURNING key', [tenantId, input.serverId, item.kind, item.name]);
        if (rows.length === 0) throw new ApiError(404, 'NOT_FOUND', `body.items.${i}.name: ${item.kind} "${item.name}" of server "${input.serverId}" is not published`, `body.items.${i}.name`);
      }
      await audit(q, tenantId, actor, 'publication.unpublish', input.serverId, { items: input.items });
    });
    return this.ctx.publisher.publish(tenantId, actor, 'unpublish');
  }

  /** Recompiles and pushes the current publications (e.g. after a Redis flush). */
  @Post('publish')
  @HttpCode(200)
  async republish(@Req() req: FastifyRequest) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    return this.ctx.publisher.publish(tenantId, actor, 'republish');
  }

  /** Published items whose upstream definition changed or vanished since approval (held for review). */
  @Get('changes')
  async changes(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    const rows = await this.ctx.db.query<Record<string, unknown>>(
      `SELECT p.server_id AS "serverId", p.kind, p.key AS name, p.exposed_name AS "exposedName",
              CASE WHEN d.key IS NULL OR d.removed_at IS NOT NULL THEN 'removed' ELSE 'modified' END AS change,
              p.approved_definition AS published, d.definition AS discovered, p.approved_hash AS "publishedHash", d.content_hash AS "discoveredHash"
         FROM registry.publications p
         LEFT JOIN registry.discovered_items d USING (tenant_id, server_id, kind, key)
        WHERE p.tenant_id = $1 AND (d.key IS NULL OR d.removed_at IS NOT NULL OR d.content_hash <> p.approved_hash)
        ORDER BY p.server_id, p.kind, p.key`,
      [tenantId],
    );
    return { changes: rows };
  }

  /** Accepts one held change: a modified definition goes live; a removed item is unpublished. */
  @Post('changes/approve')
  @HttpCode(200)
  async approve(@Req() req: FastifyRequest, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const input = parseInput(approveBody, body, 'body');
    const change = await this.ctx.db.tx(async (q) => {
      const rows = await q.query<{ approved_hash: string; content_hash: string | null; definition: unknown; removed_at: Date | null }>(
        `SELECT p.approved_hash, d.content_hash, d.definition, d.removed_at FROM registry.publications p
           LEFT JOIN registry.discovered_items d USING (tenant_id, server_id, kind, key)
          WHERE p.tenant_id = $1 AND p.server_id = $2 AND p.kind = $3 AND p.key = $4`,
        [tenantId, input.serverId, input.kind, input.name],
      );
      const row = rows[0];
      if (!row) throw new ApiError(404, 'NOT_FOUND', `body.name: ${input.kind} "${input.name}" of server "${input.serverId}" is not published`, 'body.name');
      const removed = row.content_hash === null || row.removed_at !== null;
      if (!removed && row.content_hash === row.approved_hash) throw new ApiError(409, 'CONFLICT', `body.name: ${input.kind} "${input.name}" has no pending change`, 'body.name');
      if (removed) {
        await q.query('DELETE FROM registry.publications WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4', [tenantId, input.serverId, input.kind, input.name]);
      } else {
        await q.query('UPDATE registry.publications SET approved_hash = $5, approved_definition = $6, updated_at = now() WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4', [
          tenantId,
          input.serverId,
          input.kind,
          input.name,
          row.content_hash,
          JSON.stringify(row.definition),
        ]);
      }
      await audit(q, tenantId, actor, 'change.approve', input.serverId, { kind: input.kind, name: input.name, removed });
      return removed ? 'removed' : 'modified';
    });
    return { change, ...(await this.ctx.publisher.publish(tenantId, actor, 'change approved')) };
  }

  /**
   * Exactly what each surface receives on `tools/list` (and `prompts/list`) for the current
   * publications, compiled with the same CompiledCatalog the gateway uses.
   */
  @Get('preview')
  async preview(@Req() req: FastifyRequest, @Query() query: unknown) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    const input = parseInput(previewQuery, query, 'query');
    if (!VERSIONS.includes(input.version)) throw new ApiError(400, 'VALIDATION', `query.version: unknown protocol version (known: ${VERSIONS.join(', ')})`, 'query.version');
    const tenant = await loadTenant(this.ctx.db, tenantId);
    const { snapshot } = await buildSnapshot(this.ctx.db, tenant);
    const surfaces = surfaceProfiles(tenant.surface_rules);
    if (input.surface !== undefined && !Object.hasOwn(surfaces, input.surface)) {
      throw new ApiError(404, 'NOT_FOUND', `query.surface: surface "${input.surface}" is not defined (known: ${Object.keys(surfaces).join(', ')})`, 'query.surface');
    }
    const catalog = CompiledCatalog.build(snapshot, { surfaces, pageSize: 10_000 });
    const version = input.version as ProtocolVersion;
    const ids = input.surface ? [input.surface] : Object.keys(surfaces);
    const out: Record<string, unknown> = {};
    for (const id of ids) {
      const tools = JSON.parse(catalog.list('tools/list', id, version).toString('utf8')) as { tools: unknown[] };
      const prompts = JSON.parse(catalog.list('prompts/list', id, version).toString('utf8')) as { prompts: unknown[] };
      out[id] = { profile: surfaces[id], tools: tools.tools, prompts: prompts.prompts };
    }
    return { version: snapshot.version, protocolVersion: version, live: snapshot.version === tenant.current_version, surfaces: out };
  }

  @Get('snapshots')
  async snapshots(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    const rows = await this.ctx.db.query(
      `SELECT s.version, s.created_at AS "createdAt", jsonb_array_length(s.snapshot->'tools') AS tools, (s.version = t.current_version) AS current
         FROM registry.snapshots s JOIN registry.tenants t ON t.id = s.tenant_id WHERE s.tenant_id = $1 ORDER BY s.created_at DESC LIMIT 100`,
      [tenantId],
    );
    return { snapshots: rows };
  }
}
