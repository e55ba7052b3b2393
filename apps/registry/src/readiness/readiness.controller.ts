import { Body, Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { checkUrl, NetGuardError } from '@switchboard/net-guard';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { connectInfo } from '../http/public-urls';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import { audit } from '../model/audit';
import { readinessBody, readinessParams } from './readiness-body';
import { runReadiness } from './run-readiness';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { readinessReport } from './readiness-report-schema';

/** Connector readiness check: replays what Claude and ChatGPT do against the tenant's live MCP URL. */
@Controller('v1')
@ApiTag('Readiness')
export class ReadinessController {
  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  @Post('tenants/:tenant/readiness')
  @ApiOperation({
    operationId: 'runReadiness',
    summary: 'Connector readiness check: replays what Claude and ChatGPT do against the MCP URL (or body.url) and reports each step as pass / fail / warn / skip with the reason and the fix',
    auth: 'tenant',
    body: readinessBody,
    optionalBody: true,
    params: readinessParams,
    response: readinessReport,
  })
  @HttpCode(200)
  async run(@Req() req: FastifyRequest, @Param() params: unknown, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const { tenant } = parseInput(readinessParams, params, 'params');
    // Another tenant's id answers exactly like an unknown one.
    if (tenant !== tenantId) throw ApiError.notFound('tenant', tenant, 'params.tenant');
    const input = parseInput(readinessBody, body ?? {}, 'body');
    const url = input.url ?? connectInfo(this.ctx.config, tenantId).mcpUrl;
    const field = input.url ? 'body.url' : 'url';
    try {
      await checkUrl(url, this.ctx.policy);
    } catch (err) {
      if (err instanceof NetGuardError) throw new ApiError(400, 'URL_REFUSED', `${field}: ${err.message}`, field, { reason: err.code });
      throw err;
    }
    const report = await runReadiness({ url, policy: this.ctx.policy, accessToken: input.accessToken, timeoutMs: this.ctx.config.DISCOVERY_TIMEOUT_MS });
    await audit(this.ctx.db, tenantId, actor, 'readiness.run', url, { summary: report.summary }).catch((err: Error) => this.ctx.logger.warn({ err: err.message }, 'could not audit readiness run'));
    return report;
  }
}
