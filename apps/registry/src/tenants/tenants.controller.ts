import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { surfaceProfiles } from '@switchboard/protocol';
import { adminView, createAdmin, type AdminRow } from '../model/admins';
import { isUniqueViolation, Database } from '../db/database';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { auditQuery, createKeyBody, createTenantBody, updateKeyBody, updateTenantBody } from '../http/schemas';
import { loadTenant, type TenantRow } from '../model/tenant-row';
import { connectInfo } from '../http/public-urls';
import { newApiKey } from '../model/api-keys';
import { audit } from '../model/audit';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { connectInfoSchema, tenantSettingsSchema } from '../docs/response-schemas';
import { auditResponse, tenantUpdatedResponse } from '../docs/route-responses';
import { OperatorGuard, TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { REGISTRY_CONFIG } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { Publisher } from '../publishing/publisher';

/** Tenants (operator), the calling tenant's profile and surfaces, its API keys, connect info and audit log. */
@Controller('v1')
@ApiTag('Tenants')
export class TenantsController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(Publisher) private readonly publisher: Publisher,
  ) {}

  /** Operator: creates a tenant, its first API key (shown once) and, optionally, its first console admin. */
  @Post('tenants')
  @ApiOperation({
    operationId: 'createTenant',
    summary: 'Create a tenant, its first API key and (optional `admin`) its first console admin (operator)',
    auth: 'operator',
    body: createTenantBody,
  })
  @HttpCode(201)
  @UseGuards(OperatorGuard)
  async createTenant(@Body() body: unknown) {
    const input = parseInput(createTenantBody, body, 'body');
    const key = newApiKey();
    let admin: AdminRow | undefined;
    try {
      await this.db.tx(async (q) => {
        await q.query('INSERT INTO registry.tenants (id, name, description) VALUES ($1, $2, $3)', [
          input.id,
          input.name,
          input.description ?? null,
        ]);
        await q.query('INSERT INTO registry.api_keys (tenant_id, name, key_hash, key_prefix) VALUES ($1, $2, $3, $4)', [
          input.id,
          'initial',
          key.hash,
          key.prefix,
        ]);
        await audit(q, input.id, 'operator', 'tenant.create', input.id, { name: input.name });
        if (input.admin) {
          admin = await createAdmin(q, input.id, input.admin, 'body.admin.username');
          await audit(q, input.id, 'operator', 'admin.create', input.admin.username, { name: input.admin.name ?? null });
        }
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(409, 'CONFLICT', `body.id: tenant "${input.id}" already exists`, 'body.id');
      throw err;
    }
    return { tenant: this.view(await loadTenant(this.db, input.id)), apiKey: key.key, ...(admin ? { admin: adminView(admin) } : {}) };
  }

  /** Operator: every tenant. */
  @Get('tenants')
  @ApiOperation({ operationId: 'listTenants', summary: 'List tenants (operator)', auth: 'operator' })
  @UseGuards(OperatorGuard)
  async listTenants() {
    const rows = await this.db.query<TenantRow>('SELECT * FROM registry.tenants ORDER BY id');
    return { tenants: rows.map((t) => this.view(t)) };
  }

  @Get('tenant')
  @ApiOperation({
    operationId: 'getTenant',
    summary: 'The calling tenant, its MCP URL and the `claude mcp add` line',
    auth: 'tenant',
    response: tenantSettingsSchema,
  })
  @UseGuards(TenantGuard)
  async getTenant(@Tenant() { tenantId }: TenantPrincipal) {
    return this.view(await loadTenant(this.db, tenantId));
  }

  /** Profile, browser origins, hosts and per-surface settings (validated against the surface model). */
  @Patch('tenant')
  @ApiOperation({
    operationId: 'updateTenant',
    summary: 'Update profile, origins, hosts and per-surface settings (republished when published: `published`)',
    auth: 'tenant',
    body: updateTenantBody,
    response: tenantUpdatedResponse,
  })
  @UseGuards(TenantGuard)
  async updateTenant(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(updateTenantBody, body, 'body');
    if (input.surfaceRules) {
      try {
        surfaceProfiles(input.surfaceRules);
      } catch (err) {
        throw new ApiError(400, 'VALIDATION', `body.surfaceRules: ${(err as Error).message}`, 'body.surfaceRules');
      }
    }
    await this.db.tx(async (q) => {
      const cur = await loadTenant(q, tenantId);
      await q.query(
        'UPDATE registry.tenants SET name = $2, description = $3, instructions = $4, origins = $5, hosts = $6, surface_rules = $7, updated_at = now() WHERE id = $1',
        [
          tenantId,
          input.name ?? cur.name,
          input.description === undefined ? cur.description : input.description,
          input.instructions === undefined ? cur.instructions : input.instructions,
          JSON.stringify(input.origins ?? cur.origins),
          JSON.stringify(input.hosts ?? cur.hosts),
          JSON.stringify(input.surfaceRules ?? cur.surface_rules),
        ],
      );
      await audit(q, tenantId, actor, 'tenant.update', tenantId, { fields: Object.keys(input) });
    });
    const tenant = await loadTenant(this.db, tenantId);
    const published = tenant.current_version ? await this.publisher.publish(tenantId, actor, 'tenant settings changed') : undefined;
    return { ...this.view(await loadTenant(this.db, tenantId)), published };
  }

  @Get('connect')
  @ApiOperation({
    operationId: 'getConnectInfo',
    summary: 'MCP URL and `claude mcp add --transport http` line',
    auth: 'tenant',
    response: connectInfoSchema,
  })
  @UseGuards(TenantGuard)
  async connect(@Tenant() { tenantId }: TenantPrincipal) {
    return connectInfo(this.config, tenantId);
  }

  @Get('keys')
  @ApiOperation({ operationId: 'listKeys', summary: 'List API keys (never the keys themselves)', auth: 'tenant' })
  @UseGuards(TenantGuard)
  async listKeys(@Tenant() { tenantId }: TenantPrincipal) {
    const rows = await this.db.query(
      'SELECT id, name, role, key_prefix AS "prefix", created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt" FROM registry.api_keys WHERE tenant_id = $1 ORDER BY created_at',
      [tenantId],
    );
    return { keys: rows };
  }

  /** A new API key for the calling tenant; the key is in this response only. */
  @Post('keys')
  @ApiOperation({ operationId: 'createKey', summary: 'Create an API key (shown once)', auth: 'tenant', body: createKeyBody })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async createKey(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(createKeyBody, body, 'body');
    const key = newApiKey();
    const id = await this.db.tx(async (q) => {
      const rows = await q.query<{ id: string }>(
        'INSERT INTO registry.api_keys (tenant_id, name, key_hash, key_prefix, role) VALUES ($1, $2, $3, $4, $5) RETURNING id',
        [tenantId, input.name, key.hash, key.prefix, input.role ?? 'owner'],
      );
      await audit(q, tenantId, actor, 'key.create', rows[0].id, { name: input.name, role: input.role ?? 'owner' });
      return rows[0].id;
    });
    return { id, name: input.name, role: input.role ?? 'owner', apiKey: key.key };
  }

  /** Changes an API key's role (audited); takes effect on the key's next request. */
  @Patch('keys/:id')
  @ApiOperation({
    operationId: 'updateKey',
    summary: "Change an API key's role (owner / admin / publisher / viewer); audited, effective on its next request",
    auth: 'tenant',
    body: updateKeyBody,
  })
  @UseGuards(TenantGuard)
  async updateKey(@Tenant() { tenantId, actor }: TenantPrincipal, @Param('id') id: string, @Body() body: unknown) {
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw new ApiError(400, 'VALIDATION', 'params.id: must be a key id (uuid)', 'params.id');
    const { role } = parseInput(updateKeyBody, body, 'body');
    const row = await this.db.tx(async (q) => {
      const rows = await q.query<{ id: string; name: string; role: string; from: string }>(
        'UPDATE registry.api_keys k SET role = $3 FROM registry.api_keys old WHERE k.tenant_id = $1 AND k.id = $2 AND old.id = k.id AND k.revoked_at IS NULL RETURNING k.id, k.name, k.role, old.role AS "from"',
        [tenantId, id, role],
      );
      if (rows[0]) await audit(q, tenantId, actor, 'key.role', id, { from: rows[0].from, to: role });
      return rows[0];
    });
    if (!row) throw ApiError.notFound('key', id, 'params.id');
    return { id: row.id, name: row.name, role: row.role };
  }

  @Delete('keys/:id')
  @ApiOperation({ operationId: 'revokeKey', summary: 'Revoke an API key', auth: 'tenant' })
  @UseGuards(TenantGuard)
  async revokeKey(@Tenant() { tenantId, actor }: TenantPrincipal, @Param('id') id: string) {
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw new ApiError(400, 'VALIDATION', 'params.id: must be a key id (uuid)', 'params.id');
    const done = await this.db.tx(async (q) => {
      const rows = await q.query(
        'UPDATE registry.api_keys SET revoked_at = now() WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id',
        [tenantId, id],
      );
      if (rows.length > 0) await audit(q, tenantId, actor, 'key.revoke', id);
      return rows.length > 0;
    });
    if (!done) throw ApiError.notFound('key', id, 'params.id');
    return { id, revoked: true };
  }

  @Get('audit')
  @ApiOperation({
    operationId: 'listAudit',
    summary: 'Audit log of every change, newest first',
    auth: 'tenant',
    query: auditQuery,
    response: auditResponse,
  })
  @UseGuards(TenantGuard)
  async auditLog(@Tenant() { tenantId }: TenantPrincipal, @Query() query: unknown) {
    const input = parseInput(auditQuery, query, 'query');
    const where = ['tenant_id = $1'];
    const args: unknown[] = [tenantId];
    const add = (sql: string, value: unknown) => {
      args.push(value);
      where.push(sql.replace('?', `$${args.length}`));
    };
    if (input.cursor) add('id < ?', input.cursor);
    if (input.action?.endsWith('.*')) add("starts_with(action, ? || '.')", input.action.slice(0, -2));
    else if (input.action) add('action = ?', input.action);
    if (input.actor) add('actor = ?', input.actor);
    if (input.system === 'exclude') where.push("actor <> 'system'");
    args.push(input.limit + 1);
    const rows = await this.db.query<{ id: string }>(
      `SELECT id, actor, action, target, details, at FROM registry.audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${args.length}`,
      args,
    );
    const more = rows.length > input.limit;
    const entries = more ? rows.slice(0, input.limit) : rows;
    return { entries, nextCursor: more ? String(entries[entries.length - 1]!.id) : null };
  }

  private view(t: TenantRow) {
    return {
      id: t.id,
      name: t.name,
      description: t.description,
      instructions: t.instructions,
      origins: t.origins,
      hosts: t.hosts,
      surfaceRules: t.surface_rules,
      currentVersion: t.current_version,
      ...connectInfo(this.config, t.id),
    };
  }
}
