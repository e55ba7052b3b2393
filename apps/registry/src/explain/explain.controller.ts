import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import type { TenantPrincipal } from '../http/authenticator';
import { parseInput } from '../http/parse-input';
import { Tenant, TenantGuard } from '../http/tenant-guard';
import { explainQuery, explainResponse } from './explain-schemas';
import { ExplainService } from './explain.service';

/**
 * "Why does this client not show my tool?": the ordered rules that decide a tool's visibility
 * and callability for one surface, protocol version and caller, each with its input, verdict and
 * the console place that changes it (docs/explain.md). The list rules are the compiler's own
 * functions run on the live snapshot, so the answer cannot drift from what gateways serve.
 */
@Controller('v1')
@ApiTag('Explain')
export class ExplainController {
  constructor(@Inject(ExplainService) private readonly explainer: ExplainService) {}

  @Get('explain')
  @ApiOperation({
    operationId: 'explainTool',
    summary:
      'Why a tool is (not) listed or callable for a client: the ordered rules (publish, surface list, call) with input, verdict and fix link, for one tool (`tool`) or every tool the surface does not list (at most 200). Query: surface, version, scopes, groups, capabilities',
    auth: 'tenant',
    query: explainQuery,
    response: explainResponse,
  })
  @UseGuards(TenantGuard)
  async explain(@Tenant() { tenantId }: TenantPrincipal, @Query() query: unknown) {
    return this.explainer.explain(tenantId, parseInput(explainQuery, query, 'query'));
  }
}
