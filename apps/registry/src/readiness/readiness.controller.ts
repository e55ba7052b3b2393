import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { checkUrl, NetGuardError, type NetGuardPolicy } from '@switchboard/net-guard';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { connectInfo } from '../http/public-urls';
import { audit } from '../model/audit';
import { readinessBody, readinessParams } from './readiness-body';
import { runReadiness } from './run-readiness';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { readinessReport } from './readiness-report-schema';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';
import { REGISTRY_CONFIG, NET_POLICY, LOGGER } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import type { Logger } from 'pino';

/** Connector readiness check: replays what Claude and ChatGPT do against the tenant's live MCP URL. */
@Controller('v1')
@ApiTag('Readiness')
export class ReadinessController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post('tenants/:tenant/readiness')
  @ApiOperation({
    operationId: 'runReadiness',
    summary:
      'Connector readiness check: replays what Claude and ChatGPT do against the MCP URL (or body.url) and reports each step as pass / fail / warn / skip with the reason and the fix',
    auth: 'tenant',
    body: readinessBody,
    optionalBody: true,
    params: readinessParams,
    response: readinessReport,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async run(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown, @Body() body: unknown) {
    const { tenant } = parseInput(readinessParams, params, 'params');
    // Another tenant's id answers exactly like an unknown one.
    if (tenant !== tenantId) throw ApiError.notFound('tenant', tenant, 'params.tenant');
    const input = parseInput(readinessBody, body ?? {}, 'body');
    const url = input.url ?? connectInfo(this.config, tenantId).mcpUrl;
    const field = input.url ? 'body.url' : 'url';
    try {
      await checkUrl(url, this.policy);
    } catch (err) {
      if (err instanceof NetGuardError) throw new ApiError(400, 'URL_REFUSED', `${field}: ${err.message}`, field, { reason: err.code });
      throw err;
    }
    const report = await runReadiness({
      url,
      policy: this.policy,
      accessToken: input.accessToken,
      timeoutMs: this.config.DISCOVERY_TIMEOUT_MS,
    });
    await audit(this.db, tenantId, actor, 'readiness.run', url, { summary: report.summary }).catch((err: Error) =>
      this.logger.warn({ err: err.message }, 'could not audit readiness run'),
    );
    return report;
  }
}
