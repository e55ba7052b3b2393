import { Body, Controller, Get, Inject, Put, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callLogPolicySchema, ratePlanSchema } from '@switchboard/limits';
import { parseInput } from '../http/parse-input';
import { loadTenant, type TenantRow } from '../model/tenant-row';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import { audit } from '../model/audit';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { limitsViewSchema } from '../docs/tenant-response-schemas';

/** PUT /v1/limits: `rate` null clears the plan (operator defaults apply); an absent key is left as it is. */
export const putLimitsBody = z
  .object({
    rate: ratePlanSchema.nullable().optional(),
    callLog: callLogPolicySchema.optional(),
  })
  .strict();

/**
 * The calling tenant's rate plan (`limits.rate`: requests/s, burst, per-tool overrides, daily
 * quota) and call-log policy (`limits.callLog`). A change is pushed to every gateway at once
 * with the tenant document (Redis + `catalog:changed`), as a publish is.
 */
@Controller('v1')
@ApiTag('Limits')
export class LimitsController {
  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  @Get('limits')
  @ApiOperation({
    operationId: 'getLimits',
    summary: 'The tenant\'s rate plan (limits.rate: tenant budget, per-caller limit, per-tool overrides, daily quota of tools/call; null = operator defaults) and call-log policy (limits.callLog)',
    auth: 'tenant',
    response: limitsViewSchema,
  })
  async getLimits(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    return view(await loadTenant(this.ctx.db, tenantId));
  }

  @Put('limits')
  @ApiOperation({
    operationId: 'putLimits',
    summary: 'Set the rate plan (rate: null clears it) and/or call-log policy; pushed to every gateway at once with the tenant document. Gateways cap values at their operator ceilings',
    auth: 'tenant',
    body: putLimitsBody,
    response: limitsViewSchema,
  })
  async putLimits(@Req() req: FastifyRequest, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const input = parseInput(putLimitsBody, body, 'body');
    await this.ctx.db.tx(async (q) => {
      const cur = await loadTenant(q, tenantId);
      const rate = input.rate === undefined ? cur.rate_plan : input.rate;
      const callLog = input.callLog ?? cur.call_log;
      await q.query('UPDATE registry.tenants SET rate_plan = $2, call_log = $3, updated_at = now() WHERE id = $1', [tenantId, rate === null ? null : JSON.stringify(rate), JSON.stringify(callLog)]);
      await audit(q, tenantId, actor, 'limits.update', tenantId, { rate, callLog });
    });
    const tenant = await loadTenant(this.ctx.db, tenantId);
    // Settings ride with the published document: nothing to push before the first publish.
    const pushed = tenant.current_version ? await this.ctx.publisher.push(tenantId) : undefined;
    return { ...view(tenant), ...(pushed ? { pushed } : {}) };
  }
}

function view(t: TenantRow) {
  return { rate: t.rate_plan, callLog: t.call_log };
}
