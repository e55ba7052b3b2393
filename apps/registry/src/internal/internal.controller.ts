import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { FEED_START, parseCursor, readAllVersions, readFeed } from '../model/catalog-feed';
import { verifyLogin } from '../model/admins';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { TENANT_ID, verifyLoginBody } from '../http/schemas';
import { InternalGuard } from '../http/tenant-guard';
import { Database } from '../db/database';
import { Publisher } from '../publishing/publisher';

const FEED_DEFAULT_LIMIT = 1_000;
const FEED_MAX_LIMIT = 10_000;

const feedQuery = z
  .object({
    since: z
      .string()
      .max(100)
      .transform((raw, ctx) => {
        const cursor = parseCursor(raw);
        if (!cursor) ctx.addIssue({ code: 'custom', message: 'must be 0 or a cursor returned by this route' });
        return cursor ?? FEED_START;
      })
      .optional(),
    limit: z.coerce.number().int().min(1).max(FEED_MAX_LIMIT).optional(),
  })
  .strict();

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

  /**
   * What gateways reconcile their tenant set against. Without parameters: every published
   * tenant's version (one answer; fine for a few thousand tenants) and a `cursor`. With `since`
   * (a cursor, or `0`) and/or `limit`: the changes after it, at most `limit` per page, as
   * `{versions: {tenant: version | null}, cursor, more}` — null means no longer published.
   */
  @Get('catalog-versions')
  @UseGuards(InternalGuard)
  async versions(@Query() query: unknown) {
    const q = parseInput(feedQuery, query, 'query');
    if (q.since === undefined && q.limit === undefined) {
      const all = await readAllVersions(this.db);
      return { versions: Object.fromEntries(all.versions), cursor: all.cursor };
    }
    return readFeed(this.db, q.since ?? FEED_START, q.limit ?? FEED_DEFAULT_LIMIT);
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
