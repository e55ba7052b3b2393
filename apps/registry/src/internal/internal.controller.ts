import { Body, Controller, Get, HttpCode, Inject, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { verifyLogin } from '../model/admins';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { TENANT_ID, verifyLoginBody } from '../http/schemas';
import { InternalGuard } from '../http/tenant-guard';
import { Database } from '../db/database';
import { Publisher } from '../publishing/publisher';

/**
 * Service-to-service routes (Bearer INTERNAL_TOKEN): catalogs for gateways whose Redis misses (the
 * same payload as `sb:catalog:<tenant>`, credentials sealed), and the console password check the
 * platform issuer calls.
 */
@Controller('internal')
export class InternalController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(Publisher) private readonly publisher: Publisher,
  ) {}

  @Get('catalogs')
  @UseGuards(InternalGuard)
  async all() {
    const rows = await this.db.query<{ id: string }>('SELECT id FROM registry.tenants WHERE current_version IS NOT NULL ORDER BY id');
    const catalogs = [];
    for (const { id } of rows) {
      const c = await this.publisher.catalogFor(id);
      if (c) catalogs.push(c);
    }
    return { catalogs };
  }

  /** Every published tenant's current snapshot version (one query): what gateways reconcile their tenant set against. */
  @Get('catalog-versions')
  @UseGuards(InternalGuard)
  async versions() {
    return { versions: Object.fromEntries(await this.publisher.currentVersions()) };
  }

  @Get('catalogs/:tenant')
  @UseGuards(InternalGuard)
  async one(@Param('tenant') tenant: string) {
    if (!TENANT_ID.test(tenant)) throw new ApiError(400, 'VALIDATION', 'params.tenant: must be a tenant id', 'params.tenant');
    const catalog = await this.publisher.catalogFor(tenant);
    if (!catalog) throw ApiError.notFound('published catalog of tenant', tenant, 'params.tenant');
    return catalog;
  }

  /**
   * The platform issuer's console login check. 200 `{ok: true, tenant, username, name}` or 401
   * `{ok: false}` — unknown tenant, unknown user, disabled account and wrong password are
   * indistinguishable, in body and in time. A bad body is a 400 naming the field.
   */
  @Post('console/verify-login')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async verifyLogin(@Body() body: unknown, @Res() reply: FastifyReply) {
    const input = parseInput(verifyLoginBody, body, 'body');
    const admin = await verifyLogin(this.db, input.tenant, input.username, input.password);
    if (!admin) return void reply.code(401).header('cache-control', 'no-store').send({ ok: false });
    void reply
      .header('cache-control', 'no-store')
      .send({ ok: true, tenant: admin.tenant_id, username: admin.username, name: admin.name ?? admin.username });
  }
}
