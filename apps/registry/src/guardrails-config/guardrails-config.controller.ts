import { Body, Controller, Get, HttpCode, Inject, Post, Put, UseGuards } from '@nestjs/common';
import { SecretBox } from '@switchboard/secret-box';
import type { NetGuardPolicy } from '@switchboard/net-guard';
import { checkUrl, NetGuardError } from '@switchboard/net-guard';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { ApiError } from '../http/api-error';
import { parseChain } from './parse-chain';
import { Database } from '../db/database';
import type { TenantPrincipal } from '../http/authenticator';
import { NET_POLICY } from '../http/registry-tokens';
import { Tenant, TenantGuard } from '../http/tenant-guard';
import { audit } from '../model/audit';
import { loadTenant } from '../model/tenant-row';
import { Publisher } from '../publishing/publisher';
import { chainIssues, type ChainIssue } from './guardrails-compile';
import {
  checkGuardrailsView,
  GUARDRAILS_BOUNDS,
  guardrailsView as guardrailsViewSchema,
  putGuardrailsBody,
  type InterceptorInput,
} from './guardrails-config-schema';
import { auditSummary, guardrailsView, loadGuardrails, saveGuardrails, sealSecrets } from './guardrails-store';

/**
 * The tenant's interceptor chain (issue 46 item 1, docs/guardrails.md): validators and mutators
 * on tool calls and results, built-in (PII, CEL) or webhooks. It rides in the tenant document:
 * a change is pushed to every gateway at once, like limits and auth (no publish needed), once
 * the tenant has published.
 */
@Controller('v1')
@ApiTag('Guardrails')
export class GuardrailsConfigController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(Publisher) private readonly publisher: Publisher,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
  ) {}

  @Get('guardrails')
  @ApiOperation({
    operationId: 'getGuardrails',
    summary: "The tenant's interceptor chain, in order (webhook secrets never shown: secretSet instead)",
    auth: 'tenant',
    response: guardrailsViewSchema,
  })
  @UseGuards(TenantGuard)
  async get(@Tenant() { tenantId }: TenantPrincipal) {
    return guardrailsView(await loadGuardrails(this.db, tenantId));
  }

  @Put('guardrails')
  @ApiOperation({
    operationId: 'putGuardrails',
    summary: `Replace the interceptor chain (at most ${GUARDRAILS_BOUNDS.interceptors} interceptors, ${GUARDRAILS_BOUNDS.celRules} CEL rules each, ${GUARDRAILS_BOUNDS.celExpr} characters per expression); compiled first (errors name the field, CEL errors the rule and position), webhook URLs SSRF-checked; pushed to the gateways at once`,
    auth: 'tenant',
    body: putGuardrailsBody,
    response: guardrailsViewSchema,
  })
  @UseGuards(TenantGuard)
  async put(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseChain(body);
    refuse(chainIssues(input.interceptors));
    await this.checkWebhookUrls(input.interceptors);
    await this.db.tx(async (q) => {
      const sealed = sealSecrets(this.box, tenantId, input.interceptors, await loadGuardrails(q, tenantId));
      await saveGuardrails(q, tenantId, sealed);
      await audit(q, tenantId, actor, 'guardrails.update', tenantId, auditSummary(sealed));
    });
    const tenant = await loadTenant(this.db, tenantId);
    // Settings ride with the published document: nothing to push before the first publish.
    const pushed = tenant.current_version ? await this.publisher.push(tenantId) : undefined;
    return { ...guardrailsView(await loadGuardrails(this.db, tenantId)), ...(pushed ? { pushed } : {}) };
  }

  /** Compiles a chain without saving it (the console's live validation): every refusal, of shape or compile, is a 200 listing issues. */
  @Post('guardrails/check')
  @ApiOperation({
    operationId: 'checkGuardrails',
    summary:
      'Check a candidate chain without saving it: valid, or the issues (shape and compile) naming each field (CEL errors name the rule and position). Webhook URLs are not resolved here',
    auth: 'tenant',
    body: putGuardrailsBody,
    response: checkGuardrailsView,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async check(@Body() body: unknown) {
    let issues: ChainIssue[];
    try {
      issues = chainIssues(parseChain(body).interceptors);
    } catch (err) {
      // A refused shape is an answer here too: the console shows each issue beside its field as it is typed.
      if (!(err instanceof ApiError) || err.code !== 'VALIDATION') throw err;
      issues = (err.details?.issues as ChainIssue[] | undefined) ?? [{ field: err.field ?? 'body', message: err.message }];
    }
    return { valid: issues.length === 0, issues };
  }

  private async checkWebhookUrls(interceptors: InterceptorInput[]): Promise<void> {
    for (const [n, i] of interceptors.entries()) {
      if (!('webhook' in i.use)) continue;
      const field = `body.interceptors.${n}.use.webhook.url`;
      try {
        await checkUrl(i.use.webhook.url, this.policy);
      } catch (err) {
        if (err instanceof NetGuardError) throw new ApiError(400, 'URL_REFUSED', `${field}: ${err.message}`, field, { reason: err.code });
        throw err;
      }
    }
  }
}

/** A 400 naming the first issue's field; every issue is in `details.issues`, as parseInput reports. */
function refuse(issues: ChainIssue[]): void {
  const first = issues[0];
  if (!first) return;
  throw new ApiError(400, 'VALIDATION', `${first.field}: ${first.message}`, first.field, { issues });
}
