import { Body, Controller, Get, HttpCode, Inject, Post, Query, UseGuards } from '@nestjs/common';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { approveBody, previewQuery, publishBody, unpublishBody } from '../http/schemas';
import { audit } from '../model/audit';
import { loadTenant } from '../model/tenant-row';
import { buildSnapshot } from './build-snapshot';
import { applyPublication, patternRefusal } from './apply-publication';
import { patternIssues } from './pattern-issues';
import { definitionDiff } from './definition-diff';
import { mcpAppsPreview } from './mcp-apps-preview';
import { dynamicResourcesPreview, surfacePreview } from './surface-preview';
import { missingToolHints } from './tool-hints';
import { blocksPoisoned, findingsRefusal } from '../guardrails/findings-refusal';
import type { PoisonFinding } from '../guardrails/scan-definition';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { FINDINGS_409, HINTS_400 } from '../docs/error-texts';
import { previewSchema } from '../docs/response-schemas';
import { changesResponse, publicationsResponse, publishItemsResponse, publishResultSchema } from '../docs/route-responses';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';
import { Publisher } from '../publishing/publisher';

/** Publishing: what is published, publish / unpublish, review of discovered changes, per-surface preview, snapshots. */
@Controller('v1')
@ApiTag('Publishing')
export class PublicationsController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(Publisher) private readonly publisher: Publisher,
  ) {}

  /** The routing table: exposed name → (server, upstream name), with overrides. */
  @Get('publications')
  @ApiOperation({
    operationId: 'listPublications',
    summary: 'The routing table: exposed name → (server, upstream name)',
    auth: 'tenant',
    response: publicationsResponse,
  })
  @UseGuards(TenantGuard)
  async list(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query(
      `SELECT kind, exposed_name AS "exposedName", server_id AS "serverId", key AS "upstreamName", overrides, approved_hash AS "approvedHash", updated_at AS "updatedAt"
         FROM registry.publications WHERE tenant_id = $1 ORDER BY kind, exposed_name`,
      [tenantId],
    );
    return { publications: rows };
  }

  /**
   * Publishes discovered items of one server (new ones, renames, override changes) and compiles
   * the new snapshot in the same transaction, then pushes it. Exposed names are checked here: valid on every
   * surface and unique per tenant; a collision with another server gets the server prefix.
   */
  @Post('publications')
  @ApiOperation({
    operationId: 'publish',
    summary:
      'Publish items (names checked; every tool needs readOnlyHint, destructiveHint and openWorldHint, upstream or as overrides) and push a new snapshot',
    auth: 'tenant',
    body: publishBody,
    response: publishItemsResponse,
    errors: { '400': HINTS_400, '409': FINDINGS_409 },
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async publish(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(publishBody, body, 'body');
    // One transaction: the publication rows commit with the snapshot compiled from them, or neither does.
    const { applied, ...published } = await this.publisher.publish(tenantId, actor, 'publish', async (q) => {
      const { server, items } = await applyPublication(q, tenantId, input);
      await audit(q, tenantId, actor, 'publication.publish', server.id, { items });
      return items;
    });
    return { items: applied, ...published };
  }

  @Post('publications/unpublish')
  @ApiOperation({
    operationId: 'unpublish',
    summary: 'Unpublish items and push a new snapshot',
    auth: 'tenant',
    body: unpublishBody,
    response: publishResultSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async unpublish(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(unpublishBody, body, 'body');
    const { version, tools, redis } = await this.publisher.publish(tenantId, actor, 'unpublish', async (q) => {
      for (const [i, item] of input.items.entries()) {
        const rows = await q.query(
          'DELETE FROM registry.publications WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4 RETURNING key',
          [tenantId, input.serverId, item.kind, item.name],
        );
        if (rows.length === 0)
          throw new ApiError(
            404,
            'NOT_FOUND',
            `body.items.${i}.name: ${item.kind} "${item.name}" of server "${input.serverId}" is not published`,
            `body.items.${i}.name`,
          );
      }
      await audit(q, tenantId, actor, 'publication.unpublish', input.serverId, { items: input.items });
    });
    return { version, tools, redis };
  }

  /** Recompiles and pushes the current publications (e.g. after a Redis flush). */
  @Post('publish')
  @ApiOperation({
    operationId: 'republish',
    summary: 'Recompile and push the current snapshot',
    auth: 'tenant',
    response: publishResultSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async republish(@Tenant() { tenantId, actor }: TenantPrincipal) {
    return this.publisher.publish(tenantId, actor, 'republish');
  }

  /**
   * Published items whose upstream definition changed or vanished since approval (held for review),
   * each with a structured `diff` (JSON-pointer paths) and the hints the new definition lacks.
   */
  @Get('changes')
  @ApiOperation({
    operationId: 'listChanges',
    summary: 'Discovered changes of published items held for review, each with a structured diff and the hints the new definition lacks',
    auth: 'tenant',
    response: changesResponse,
  })
  @UseGuards(TenantGuard)
  async changes(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT p.server_id AS "serverId", p.kind, p.key AS name, p.exposed_name AS "exposedName",
              CASE WHEN d.key IS NULL OR d.removed_at IS NOT NULL THEN 'removed' ELSE 'modified' END AS change,
              p.approved_definition AS published, d.definition AS discovered, p.approved_hash AS "publishedHash", d.content_hash AS "discoveredHash",
              d.findings
         FROM registry.publications p
         LEFT JOIN registry.discovered_items d USING (tenant_id, server_id, kind, key)
        WHERE p.tenant_id = $1 AND (d.key IS NULL OR d.removed_at IS NOT NULL OR d.content_hash <> p.approved_hash)
        ORDER BY p.server_id, p.kind, p.key`,
      [tenantId],
    );
    return {
      changes: rows.map((r) => {
        const removed = r.change === 'removed';
        return {
          ...r,
          // What the upstream changed since approval, path by path; `missingHints` of the new definition (tools only).
          diff: definitionDiff(r.published, removed ? undefined : r.discovered),
          missingHints: !removed && r.kind === 'tool' ? missingToolHints(r.discovered) : [],
          // Regexes the gateway's RE2 engine cannot run: approving is refused until the upstream drops them.
          unsupportedPatterns: !removed && r.kind === 'tool' ? patternIssues(r.discovered) : [],
          // Poisoned-tool warnings of the new definition: approving needs `acknowledgeFindings: true`.
          findings: removed ? [] : r.findings,
        };
      }),
    };
  }

  /** Accepts one held change: a modified definition goes live; a removed item is unpublished. */
  @Post('changes/approve')
  @ApiOperation({
    operationId: 'approveChange',
    summary: 'Approve one held change and publish',
    auth: 'tenant',
    body: approveBody,
    errors: { '409': FINDINGS_409 },
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async approve(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(approveBody, body, 'body');
    const { applied: change, ...published } = await this.publisher.publish(tenantId, actor, 'change approved', async (q) => {
      const rows = await q.query<{
        approved_hash: string;
        content_hash: string | null;
        definition: unknown;
        removed_at: Date | null;
        findings: PoisonFinding[] | null;
      }>(
        `SELECT p.approved_hash, d.content_hash, d.definition, d.removed_at, d.findings FROM registry.publications p
           LEFT JOIN registry.discovered_items d USING (tenant_id, server_id, kind, key)
          WHERE p.tenant_id = $1 AND p.server_id = $2 AND p.kind = $3 AND p.key = $4`,
        [tenantId, input.serverId, input.kind, input.name],
      );
      const row = rows[0];
      if (!row)
        throw new ApiError(
          404,
          'NOT_FOUND',
          `body.name: ${input.kind} "${input.name}" of server "${input.serverId}" is not published`,
          'body.name',
        );
      const removed = row.content_hash === null || row.removed_at !== null;
      if (!removed && row.content_hash === row.approved_hash)
        throw new ApiError(409, 'CONFLICT', `body.name: ${input.kind} "${input.name}" has no pending change`, 'body.name');
      if (!removed && input.kind === 'tool') {
        const patterns = patternIssues(row.definition);
        if (patterns.length > 0) throw patternRefusal('body.name', input.name, patterns);
      }
      if (!removed) {
        const check = {
          kind: input.kind,
          name: input.name,
          findings: row.findings ?? [],
          acknowledged: input.acknowledgeFindings === true,
          at: 'body',
        };
        const refused = findingsRefusal({ ...check, blockPoisoned: await blocksPoisoned(q, tenantId) });
        if (refused) throw refused;
      }
      if (removed) {
        await q.query('DELETE FROM registry.publications WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4', [
          tenantId,
          input.serverId,
          input.kind,
          input.name,
        ]);
      } else {
        await q.query(
          'UPDATE registry.publications SET approved_hash = $5, approved_definition = $6, updated_at = now() WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4',
          [tenantId, input.serverId, input.kind, input.name, row.content_hash, JSON.stringify(row.definition)],
        );
      }
      await audit(q, tenantId, actor, 'change.approve', input.serverId, { kind: input.kind, name: input.name, removed });
      return removed ? 'removed' : 'modified';
    });
    return { change, ...published };
  }

  /**
   * Exactly what each surface receives on `tools/list` (and `prompts/list`) for the current
   * publications, compiled with the same CompiledCatalog the gateway uses.
   */
  @Get('preview')
  @ApiOperation({
    operationId: 'getPreview',
    summary: 'What each surface receives (query: surface, version)',
    auth: 'tenant',
    query: previewQuery,
    response: previewSchema,
  })
  @UseGuards(TenantGuard)
  async preview(@Tenant() { tenantId }: TenantPrincipal, @Query() query: unknown) {
    const input = parseInput(previewQuery, query, 'query');
    const tenant = await loadTenant(this.db, tenantId);
    const { snapshot } = await buildSnapshot(this.db, tenant);
    const surfaces = surfacePreview(snapshot, tenant.surface_rules, input.version, input.surface);
    return {
      version: snapshot.version,
      protocolVersion: input.version,
      live: snapshot.version === tenant.current_version,
      surfaces,
      dynamicResources: dynamicResourcesPreview(snapshot),
      mcpApps: mcpAppsPreview(snapshot, tenant.surface_rules),
    };
  }

  /**
   * Draft preview: what each surface would receive if the body (the same shape as
   * `POST /v1/publications`) were published now — the current publications with the proposal
   * applied, through the same name checks, retirement and compile as publishing, in a
   * transaction that is rolled back. Nothing is written, audited or pushed to gateways.
   */
  @Post('preview')
  @ApiOperation({
    operationId: 'previewDraft',
    summary:
      'Draft preview: what each surface would receive if this publication (the POST /v1/publications body) were published now (query: surface, version). Same name and hint checks and compile as publishing; nothing is written',
    auth: 'tenant',
    body: publishBody,
    query: previewQuery,
    response: previewSchema,
    errors: { '400': HINTS_400, '409': FINDINGS_409 },
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async previewDraft(@Tenant() { tenantId }: TenantPrincipal, @Query() query: unknown, @Body() body: unknown) {
    const q = parseInput(previewQuery, query, 'query');
    const input = parseInput(publishBody, body, 'body');
    const { tenant, snapshot, applied } = await this.publisher.draft(tenantId, (tx) => applyPublication(tx, tenantId, input));
    const surfaces = surfacePreview(snapshot, tenant.surface_rules, q.version, q.surface);
    return {
      draft: true,
      version: snapshot.version,
      protocolVersion: q.version,
      /** The snapshot gateways serve now (null before the first publish). */
      liveVersion: tenant.current_version,
      /** True when publishing this draft would change nothing. */
      live: snapshot.version === tenant.current_version,
      items: applied.items,
      surfaces,
      dynamicResources: dynamicResourcesPreview(snapshot),
      mcpApps: mcpAppsPreview(snapshot, tenant.surface_rules),
    };
  }

  @Get('snapshots')
  @ApiOperation({ operationId: 'listSnapshots', summary: 'Immutable snapshots (version = content hash)', auth: 'tenant' })
  @UseGuards(TenantGuard)
  async snapshots(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query(
      `SELECT s.version, s.created_at AS "createdAt", jsonb_array_length(s.snapshot->'tools') AS tools, (s.version = t.current_version) AS current
         FROM registry.snapshots s JOIN registry.tenants t ON t.id = s.tenant_id WHERE s.tenant_id = $1 ORDER BY s.created_at DESC LIMIT 100`,
      [tenantId],
    );
    return { snapshots: rows };
  }
}
