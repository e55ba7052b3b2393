import { Body, Controller, Get, Inject, Put, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { callLogPolicySchema, ratePlanSchema } from '@switchboard/limits';
import { parseInput } from '../http/parse-input';
import { loadTenant, type TenantRow } from '../model/tenant-row';
import { audit } from '../model/audit';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { limitsViewSchema } from '../docs/tenant-response-schemas';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';
import { Publisher } from '../publishing/publisher';

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
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(Publisher) private readonly publisher: Publisher,
  ) {}

  @Get('limits')
  @ApiOperation({
    operationId: 'getLimits',
    summary:
      "The tenant's rate plan (limits.rate: tenant budget, per-caller limit, per-tool overrides, daily quota of tools/call; null = operator defaults) and call-log policy (limits.callLog)",
    auth: 'tenant',
    response: limitsViewSchema,
  })
  @UseGuards(TenantGuard)
  async getLimits(@Tenant() { tenantId }: TenantPrincipal) {
    return view(await loadTenant(this.db, tenantId));
  }

  @Put('limits')
  @ApiOperation({
    operationId: 'putLimits',
    summary:
      'Set the rate plan (rate: null clears it) and/or call-log policy; pushed to every gateway at once with the tenant document. Gateways cap values at their operator ceilings',
    auth: 'tenant',
    body: putLimitsBody,
    response: limitsViewSchema,
  })
  @UseGuards(TenantGuard)
  async putLimits(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(putLimitsBody, body, 'body');
    await this.db.tx(async (q) => {
      const cur = await loadTenant(q, tenantId);
      const rate = input.rate === undefined ? cur.rate_plan : input.rate;
      const callLog = input.callLog ?? cur.call_log;
      await q.query('UPDATE registry.tenants SET rate_plan = $2, call_log = $3, updated_at = now() WHERE id = $1', [
        tenantId,
        rate === null ? null : JSON.stringify(rate),
        JSON.stringify(callLog),
      ]);
      await audit(q, tenantId, actor, 'limits.update', tenantId, { rate, callLog });
    });
    const tenant = await loadTenant(this.db, tenantId);
    // Settings ride with the published document: nothing to push before the first publish.
    const pushed = tenant.current_version ? await this.publisher.push(tenantId) : undefined;
    return { ...view(tenant), ...(pushed ? { pushed } : {}) };
  }
}

function view(t: TenantRow) {
  return { rate: t.rate_plan, callLog: t.call_log };
}
