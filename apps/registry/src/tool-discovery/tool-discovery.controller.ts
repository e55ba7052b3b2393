import { Body, Controller, Delete, Get, Inject, Put, Query, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { discoverySettingsSchema, type DiscoverySettings } from '@switchboard/catalog';
import { parseInput } from '../http/parse-input';
import { buildSnapshot } from '../publishing/build-snapshot';
import { loadTenant, type TenantRow } from '../model/tenant-row';
import { audit } from '../model/audit';
import type { TenantPrincipal } from '../http/authenticator';
import { Tenant, TenantGuard } from '../http/tenant-guard';
import { Publisher } from '../publishing/publisher';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { Database, type Queryable } from '../db/database';
import { checkDiscoverySettings, discoveryPreview } from './discovery-preview';

const discoveryQuery = z
  .object({
    version: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a protocol version like 2025-11-25')
      .default('2025-11-25'),
  })
  .strict();

const surfacePreviewSchema = z.object({
  mode: z.enum(['off', 'on', 'auto']),
  threshold: z.number().int(),
  pinned: z.array(z.string()),
  tools: z.number().int(),
  active: z.boolean(),
  listed: z.array(z.string()),
});

const discoveryViewSchema = z.object({
  discovery: discoverySettingsSchema.nullable(),
  protocolVersion: z.string(),
  surfaces: z.record(z.string(), surfacePreviewSchema),
  unknownPinned: z.array(z.string()).optional(),
  pushed: z.unknown().optional(),
});

/**
 * Progressive discovery settings of the calling tenant (the tenant document's `discovery`): a
 * default mode (`off`, `on`, or `auto` past `threshold` tools), pinned tools, and overrides per
 * surface; with, per surface, what its clients get now. A change reaches every gateway with the
 * tenant document, as a publish does.
 */
@Controller('v1')
@ApiTag('Discovery')
export class ToolDiscoveryController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(Publisher) private readonly publisher: Publisher,
  ) {}

  @Get('discovery')
  @ApiOperation({
    operationId: 'getDiscovery',
    summary:
      'Progressive discovery settings (mode, threshold, pinned tools, per-surface overrides) and, per surface, whether discovery mode is on and what the first tools/list lists (query: version)',
    auth: 'tenant',
    query: discoveryQuery,
    response: discoveryViewSchema,
  })
  @UseGuards(TenantGuard)
  async getDiscovery(@Tenant() { tenantId }: TenantPrincipal, @Query() query: unknown) {
    const { version } = parseInput(discoveryQuery, query, 'query');
    return this.view(this.db, await loadTenant(this.db, tenantId), version);
  }

  @Put('discovery')
  @ApiOperation({
    operationId: 'putDiscovery',
    summary:
      'Set the progressive discovery settings; pushed to every gateway with the tenant document. Pinned names the catalog lacks are reported in unknownPinned',
    auth: 'tenant',
    body: discoverySettingsSchema,
    response: discoveryViewSchema,
  })
  @UseGuards(TenantGuard)
  async putDiscovery(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(discoverySettingsSchema, body, 'body');
    let unknownPinned: string[] = [];
    await this.db.tx(async (q) => {
      const cur = await loadTenant(q, tenantId);
      ({ unknownPinned } = checkDiscoverySettings(input, cur.surface_rules, (await buildSnapshot(q, cur)).snapshot));
      await q.query('UPDATE registry.tenants SET discovery = $2, updated_at = now() WHERE id = $1', [tenantId, JSON.stringify(input)]);
      await audit(q, tenantId, actor, 'discovery.update', tenantId, { mode: input.mode, surfaces: Object.keys(input.surfaces) });
    });
    return { ...(await this.changed(tenantId)), unknownPinned };
  }

  @Delete('discovery')
  @ApiOperation({
    operationId: 'deleteDiscovery',
    summary: 'Clear the discovery settings: every surface serves its full tools/list again',
    auth: 'tenant',
    response: discoveryViewSchema,
  })
  @UseGuards(TenantGuard)
  async deleteDiscovery(@Tenant() { tenantId, actor }: TenantPrincipal) {
    await this.db.tx(async (q) => {
      await q.query('UPDATE registry.tenants SET discovery = NULL, updated_at = now() WHERE id = $1', [tenantId]);
      await audit(q, tenantId, actor, 'discovery.clear', tenantId, {});
    });
    return this.changed(tenantId);
  }

  /** The view after a change, and the push of the tenant document (settings ride with it: nothing to push before the first publish). */
  private async changed(tenantId: string) {
    const tenant = await loadTenant(this.db, tenantId);
    const pushed = tenant.current_version ? await this.publisher.push(tenantId) : undefined;
    return { ...(await this.view(this.db, tenant, '2025-11-25')), ...(pushed ? { pushed } : {}) };
  }

  private async view(q: Queryable, tenant: TenantRow, version: string) {
    const settings: DiscoverySettings | undefined = tenant.discovery ? discoverySettingsSchema.parse(tenant.discovery) : undefined;
    const { snapshot } = await buildSnapshot(q, tenant);
    return {
      discovery: settings ?? null,
      protocolVersion: version,
      surfaces: discoveryPreview(snapshot, tenant.surface_rules, settings, version),
    };
  }
}
