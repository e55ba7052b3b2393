import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { loadTenant } from '../model/tenant-row';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { enterpriseCheckResultSchema } from '../docs/tenant-response-schemas';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';
import { REGISTRY_CONFIG } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';

/** Time the auth service gets for a check (a JWKS fetch included). */
const CHECK_TIMEOUT_MS = 10_000;
/** Largest answer read from the auth service. */
const MAX_ANSWER_BYTES = 16 * 1024;

const checkBody = z
  .object({
    assertion: z
      .string()
      .min(1)
      .max(16 * 1024, 'must be at most 16384 characters'),
  })
  .strict();

/**
 * The console's test of enterprise-managed authorization: the admin pastes an ID-JAG their IdP
 * issued, and the workspace's live authorization server says what its token endpoint would do
 * with it — the user and scopes, or the check that refuses it — without spending it.
 */
@Controller('v1')
@ApiTag('Tenant auth')
export class EnterpriseCheckController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
  ) {}

  @Post('tenant/auth/enterprise-check')
  @ApiOperation({
    operationId: 'checkIdJag',
    summary:
      "Test an ID-JAG against the workspace's live authorization server as if its client presented it: `{ ok: true, issuer, clientId, subject, scopes, expiresAt }` or `{ ok: false, check, description }` (the check the token endpoint would refuse it with). Nothing is spent or issued",
    auth: 'tenant',
    body: checkBody,
    response: enterpriseCheckResultSchema,
    errors: {
      '409': 'CONFLICT: the workspace is not published yet',
      '503': 'UNAVAILABLE: the auth service is not configured (AUTH_INTERNAL_URL) or unreachable',
    },
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async check(@Tenant() { tenantId }: TenantPrincipal, @Body() body: unknown) {
    const { assertion } = parseInput(checkBody, body, 'body');
    const tenant = await loadTenant(this.db, tenantId);
    if (!tenant.current_version)
      throw new ApiError(409, 'CONFLICT', 'publish the workspace first: the check runs at its live authorization server', 'assertion');
    const authUrl = this.config.AUTH_INTERNAL_URL;
    if (!authUrl) throw new ApiError(503, 'UNAVAILABLE', 'the auth service is not configured (AUTH_INTERNAL_URL)');
    let res: Response;
    let answer: unknown;
    try {
      res = await fetch(`${authUrl.replace(/\/+$/, '')}/internal/tenants/${encodeURIComponent(tenantId)}/id-jag/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.config.INTERNAL_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ assertion }),
        redirect: 'error',
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
      });
      const text = await res.text();
      answer = text.length <= MAX_ANSWER_BYTES ? JSON.parse(text) : undefined;
    } catch (err) {
      throw new ApiError(503, 'UNAVAILABLE', 'the auth service is unreachable; try again shortly', undefined, undefined, { cause: err });
    }
    if (res.status === 404)
      throw new ApiError(
        409,
        'CONFLICT',
        'the authorization server does not know this workspace yet: publish it, or turn OAuth protection on',
        'assertion',
      );
    const parsed = enterpriseCheckResultSchema.safeParse(answer);
    if (!res.ok || !parsed.success) throw new ApiError(503, 'UNAVAILABLE', `the auth service answered ${res.status}`);
    return parsed.data;
  }
}
