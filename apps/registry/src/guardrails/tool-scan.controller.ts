import { Body, Controller, Get, Inject, Put, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { parseInput } from '../http/parse-input';
import { audit } from '../model/audit';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { blocksPoisoned } from './findings-refusal';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';

/** `PUT /v1/guardrails/tool-scan`: whether high-severity poisoned-tool findings refuse publishing. */
export const putToolScanBody = z.object({ blockPoisoned: z.boolean() }).strict();

const toolScanView = z.object({ blockPoisoned: z.boolean() });

/**
 * The tenant's poisoned-tool setting (docs/guardrails.md). Off (the default): findings are
 * warnings a publisher acknowledges. On: an item with a high-severity finding cannot be published
 * or approved at all (409 POISONED_TOOL_BLOCKED naming the rule). Not part of the tenant
 * document: it governs publishing only, so nothing is pushed to gateways.
 */
@Controller('v1')
@ApiTag('Guardrails')
export class ToolScanController {
  constructor(@Inject(Database) private readonly db: Database) {}

  @Get('guardrails/tool-scan')
  @ApiOperation({
    operationId: 'getToolScan',
    summary: 'Whether high-severity poisoned-tool findings refuse publishing (blockPoisoned)',
    auth: 'tenant',
    response: toolScanView,
  })
  @UseGuards(TenantGuard)
  async get(@Tenant() { tenantId }: TenantPrincipal) {
    return { blockPoisoned: await blocksPoisoned(this.db, tenantId) };
  }

  @Put('guardrails/tool-scan')
  @ApiOperation({
    operationId: 'putToolScan',
    summary:
      'Set blockPoisoned: when true, items with a high-severity poisoned-tool finding cannot be published or approved, even acknowledged',
    auth: 'tenant',
    body: putToolScanBody,
    response: toolScanView,
  })
  @UseGuards(TenantGuard)
  async put(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(putToolScanBody, body, 'body');
    await this.db.tx(async (q) => {
      await q.query('UPDATE registry.tenants SET block_poisoned = $2, updated_at = now() WHERE id = $1', [tenantId, input.blockPoisoned]);
      await audit(q, tenantId, actor, 'guardrails.tool-scan.update', tenantId, { blockPoisoned: input.blockPoisoned });
    });
    return { blockPoisoned: input.blockPoisoned };
  }
}
