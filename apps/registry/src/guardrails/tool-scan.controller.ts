import { Body, Controller, Get, Inject, Put, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../http/parse-input';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import { audit } from '../model/audit';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { blocksPoisoned } from './findings-refusal';

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
  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  @Get('guardrails/tool-scan')
  @ApiOperation({ operationId: 'getToolScan', summary: 'Whether high-severity poisoned-tool findings refuse publishing (blockPoisoned)', auth: 'tenant', response: toolScanView })
  async get(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    return { blockPoisoned: await blocksPoisoned(this.ctx.db, tenantId) };
  }

  @Put('guardrails/tool-scan')
  @ApiOperation({
    operationId: 'putToolScan',
    summary: 'Set blockPoisoned: when true, items with a high-severity poisoned-tool finding cannot be published or approved, even acknowledged',
    auth: 'tenant',
    body: putToolScanBody,
    response: toolScanView,
  })
  async put(@Req() req: FastifyRequest, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const input = parseInput(putToolScanBody, body, 'body');
    await this.ctx.db.tx(async (q) => {
      await q.query('UPDATE registry.tenants SET block_poisoned = $2, updated_at = now() WHERE id = $1', [tenantId, input.blockPoisoned]);
      await audit(q, tenantId, actor, 'guardrails.tool-scan.update', tenantId, { blockPoisoned: input.blockPoisoned });
    });
    return { blockPoisoned: input.blockPoisoned };
  }
}
