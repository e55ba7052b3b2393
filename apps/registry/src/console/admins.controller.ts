import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { adminBody, adminParams, updateAdminBody } from '../http/schemas';
import { audit } from '../model/audit';
import { adminView, createAdmin, type AdminRow } from '../model/admins';
import { revokeAdminSessions } from '../model/session-store';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { adminSchema, sessionInfoSchema } from '../docs/response-schemas';
import { adminsResponse } from '../docs/route-responses';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';

/** The calling tenant's console admins, and who the caller is (`GET /v1/session`). */
@Controller('v1')
@ApiTag('Admins')
export class AdminsController {
  constructor(@Inject(Database) private readonly db: Database) {}

  /** Who is calling: the tenant, the signed-in admin (null for an API key) and how they authenticated. */
  @Get('session')
  @ApiOperation({
    operationId: 'getSession',
    summary:
      'Who is calling: the tenant, the signed-in console admin (null for an API key) and how (session cookie, platform token or API key)',
    auth: 'tenant',
    response: sessionInfoSchema,
  })
  @UseGuards(TenantGuard)
  async session(@Tenant() principal: TenantPrincipal) {
    return { tenant: principal.tenantId, user: principal.user ?? null, via: principal.via, role: principal.role };
  }

  @Get('admins')
  @ApiOperation({
    operationId: 'listAdmins',
    summary: 'Console admins of the tenant (never password hashes)',
    auth: 'tenant',
    response: adminsResponse,
  })
  @UseGuards(TenantGuard)
  async list(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query<AdminRow>('SELECT * FROM registry.tenant_admins WHERE tenant_id = $1 ORDER BY username', [tenantId]);
    return { admins: rows.map(adminView) };
  }

  /** A new console admin (the password is stored as an scrypt hash, never returned). */
  @Post('admins')
  @ApiOperation({
    operationId: 'createAdmin',
    summary: 'Create a console admin (password 12–1024 characters, stored as scrypt); 409 naming body.username when taken',
    auth: 'tenant',
    body: adminBody,
    response: adminSchema,
  })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async create(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(adminBody, body, 'body');
    const row = await this.db.tx(async (q) => {
      const created = await createAdmin(q, tenantId, input);
      await audit(q, tenantId, actor, 'admin.create', input.username, { name: input.name ?? null, role: created.role });
      return created;
    });
    return adminView(row);
  }

  /** Changes an admin's role (audited); the tenant's last active owner cannot be demoted (409). */
  @Patch('admins/:username')
  @ApiOperation({
    operationId: 'updateAdmin',
    summary: "Change a console admin's role (owner / admin / publisher / viewer); 409 when it would demote the last active owner. Audited",
    auth: 'tenant',
    body: updateAdminBody,
    params: adminParams,
    response: adminSchema,
  })
  @UseGuards(TenantGuard)
  async update(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown, @Body() body: unknown) {
    const { username } = parseInput(adminParams, params, 'params');
    const { role } = parseInput(updateAdminBody, body, 'body');
    const row = await this.db.tx(async (q) => {
      const cur = await q.query<AdminRow>('SELECT * FROM registry.tenant_admins WHERE tenant_id = $1 AND username = $2 FOR UPDATE', [
        tenantId,
        username,
      ]);
      if (!cur[0]) throw ApiError.notFound('admin', username, 'params.username');
      if (cur[0].role === 'owner' && role !== 'owner' && cur[0].disabled_at === null) {
        // Serialise owner demotions of one tenant, so two cannot each leave the other as the last owner.
        await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry-owners:${tenantId}`]);
        const others = await q.query(
          "SELECT 1 FROM registry.tenant_admins WHERE tenant_id = $1 AND username <> $2 AND role = 'owner' AND disabled_at IS NULL",
          [tenantId, username],
        );
        if (others.length === 0)
          throw new ApiError(
            409,
            'CONFLICT',
            `body.role: "${username}" is the last active owner; make another admin owner first`,
            'body.role',
          );
      }
      const rows = await q.query<AdminRow>(
        'UPDATE registry.tenant_admins SET role = $3 WHERE tenant_id = $1 AND username = $2 RETURNING *',
        [tenantId, username, role],
      );
      await audit(q, tenantId, actor, 'admin.role', username, { from: cur[0].role, to: role });
      return rows[0];
    });
    return adminView(row);
  }

  /** Disables an admin: no new sign-in, and their sessions and tokens stop working at once. The row stays for the audit trail. */
  @Delete('admins/:username')
  @ApiOperation({
    operationId: 'disableAdmin',
    summary: 'Disable a console admin (audited): no sign-in, and their sessions and tokens stop working at once',
    auth: 'tenant',
    params: adminParams,
    response: adminSchema,
  })
  @UseGuards(TenantGuard)
  async disable(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { username } = parseInput(adminParams, params, 'params');
    const row = await this.db.tx(async (q) => {
      const rows = await q.query<AdminRow>(
        'UPDATE registry.tenant_admins SET disabled_at = coalesce(disabled_at, now()) WHERE tenant_id = $1 AND username = $2 RETURNING *',
        [tenantId, username],
      );
      if (!rows[0]) throw ApiError.notFound('admin', username, 'params.username');
      await revokeAdminSessions(q, tenantId, username);
      await audit(q, tenantId, actor, 'admin.disable', username);
      return rows[0];
    });
    return adminView(row);
  }
}
