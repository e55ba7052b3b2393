import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { audit } from '../model/audit';
import { ScimError } from '../http/scim-error';
import { createScimToken, scimTokenView, type ScimTokenRow } from './scim-tokens';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';
import { REGISTRY_CONFIG } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';

const createBody = z.object({ name: z.string().min(1, 'must not be empty').max(64) }).strict();
const tokenParams = z.object({ id: z.string().regex(/^st_[0-9a-f]{16}$/, 'must be a SCIM token id') });
const tokensResponse = z.object({ baseUrl: z.string(), tokens: z.array(z.record(z.string(), z.unknown())) });

/** SCIM tokens of the workspace: an owner creates one per IdP app (shown once, stored hashed) and revokes it. */
@Controller('v1/scim')
@ApiTag('SCIM')
export class ScimTokensController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
  ) {}

  private baseUrl(tenantId: string): string {
    return `${this.config.REGISTRY_PUBLIC_URL}/scim/v2/${tenantId}`;
  }

  @Get('tokens')
  @ApiOperation({
    operationId: 'listScimTokens',
    summary: 'SCIM tokens of the workspace (never the token) and the SCIM base URL to give the IdP',
    auth: 'tenant',
    response: tokensResponse,
  })
  @UseGuards(TenantGuard)
  async list(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query<ScimTokenRow>(
      'SELECT * FROM registry.scim_tokens WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 100',
      [tenantId],
    );
    return { baseUrl: this.baseUrl(tenantId), tokens: rows.map(scimTokenView) };
  }

  @Post('tokens')
  @ApiOperation({
    operationId: 'createScimToken',
    summary: 'Create a SCIM bearer token (returned once; stored as SHA-256); 409 past 10 live tokens. Audited',
    auth: 'tenant',
    body: createBody,
  })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async create(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const { name } = parseInput(createBody, body, 'body');
    try {
      return await this.db.tx(async (q) => {
        const { token, row } = await createScimToken(q, tenantId, name, actor);
        await audit(q, tenantId, actor, 'scim.token.create', row.id, { name });
        return { token, baseUrl: this.baseUrl(tenantId), ...scimTokenView(row) };
      });
    } catch (err) {
      if (err instanceof ScimError)
        throw new ApiError(409, 'CONFLICT', `body.name: ${err.message}`, 'body.name', undefined, { cause: err });
      throw err;
    }
  }

  @Delete('tokens/:id')
  @ApiOperation({
    operationId: 'revokeScimToken',
    summary: 'Revoke a SCIM token: the IdP is refused from the next request. Audited',
    auth: 'tenant',
    params: tokenParams,
  })
  @UseGuards(TenantGuard)
  async revoke(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(tokenParams, params, 'params');
    return this.db.tx(async (q) => {
      const rows = await q.query<ScimTokenRow>(
        'UPDATE registry.scim_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE tenant_id = $1 AND id = $2 RETURNING *',
        [tenantId, id],
      );
      if (!rows[0]) throw ApiError.notFound('SCIM token', id, 'params.id');
      await audit(q, tenantId, actor, 'scim.token.revoke', id);
      return scimTokenView(rows[0]);
    });
  }
}
