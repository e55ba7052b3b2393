import { Body, Controller, Get, Inject, Put, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callLogPolicySchema, ratePlanSchema } from '@switchboard/limits';
import { parseInput } from '../http/parse-input';
import { loadTenant, type TenantRow } from '../publishing/build-snapshot';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import { audit } from '../tenants/audit';

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
export class LimitsController {
  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  @Get('limits')
  async getLimits(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    return view(await loadTenant(this.ctx.db, tenantId));
  }

  @Put('limits')
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
