import { Controller, Get, Inject, Param, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { TENANT_ID } from '../http/schemas';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';

/** For gateways whose Redis misses: the same payload as `sb:catalog:<tenant>` (credentials sealed). */
@Controller('internal')
export class InternalController {
  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  @Get('catalogs')
  async all(@Req() req: FastifyRequest) {
    this.ctx.auth.internal(req);
    const rows = await this.ctx.db.query<{ id: string }>('SELECT id FROM registry.tenants WHERE current_version IS NOT NULL ORDER BY id');
    const catalogs = [];
    for (const { id } of rows) {
      const c = await this.ctx.publisher.catalogFor(id);
      if (c) catalogs.push(c);
    }
    return { catalogs };
  }

  @Get('catalogs/:tenant')
  async one(@Req() req: FastifyRequest, @Param('tenant') tenant: string) {
    this.ctx.auth.internal(req);
    if (!TENANT_ID.test(tenant)) throw new ApiError(400, 'VALIDATION', 'params.tenant: must be a tenant id', 'params.tenant');
    const catalog = await this.ctx.publisher.catalogFor(tenant);
    if (!catalog) throw ApiError.notFound('published catalog of tenant', tenant, 'params.tenant');
    return catalog;
  }
}
