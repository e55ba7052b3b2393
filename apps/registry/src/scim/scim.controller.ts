import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { type Queryable, Database } from '../db/database';
import { TENANT_ID } from '../http/schemas';
import { ScimError } from '../http/scim-error';
import { parseScimFilter } from './scim-filter';
import { createGroup, deleteGroup, findGroup, GROUP_FILTER_ATTRS, groupResource, listGroups, membersOf, saveGroup } from './scim-groups';
import { listResponse, readPage } from './scim-page';
import { applyScimPatch } from './scim-patch';
import { authenticateScim } from './scim-tokens';
import { readUserInput } from './scim-user-resource';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery';
import { createScimUser, deleteScimUser, findUser, groupsOfUsers, listUsers, saveScimUser, USER_FILTER_ATTRS } from './scim-users';
import { userResource } from './scim-user-resource';
import { REGISTRY_CONFIG } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { UserRevocations } from '../scim/user-revocations';

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/**
 * SCIM 2.0 (RFC 7643/7644) per tenant at `/scim/v2/<tenant>`: Users (the tenant user directory)
 * and Groups (whose names the console SSO setting maps to console roles), with the discovery
 * documents. Bearer-authenticated with a tenant SCIM token; every change is audited; errors use
 * the SCIM error schema (rendered by the app's exception filter for /scim paths).
 */
@Controller('scim/v2/:tenant')
@ApiTag('SCIM')
export class ScimController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(UserRevocations) private readonly revocations: UserRevocations,
  ) {}

  private async caller(req: FastifyRequest, tenant: string): Promise<{ tenantId: string; actor: string; base: string }> {
    if (!TENANT_ID.test(tenant)) throw new ScimError(404, `tenant ${tenant} not found`);
    const { actor } = await authenticateScim(this.db, req, tenant);
    return { tenantId: tenant, actor, base: `${this.config.REGISTRY_PUBLIC_URL}/scim/v2/${tenant}` };
  }

  private send(reply: FastifyReply, status: number, body: unknown): void {
    void reply.code(status).header('content-type', SCIM_CONTENT_TYPE).header('cache-control', 'no-store').send(JSON.stringify(body));
  }

  @Get('ServiceProviderConfig')
  @ApiOperation({
    operationId: 'scimServiceProviderConfig',
    summary: 'SCIM ServiceProviderConfig (RFC 7644 §5) (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async spc(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Res() reply: FastifyReply) {
    const { base } = await this.caller(req, tenant);
    this.send(reply, 200, serviceProviderConfig(base));
  }

  @Get('ResourceTypes')
  @ApiOperation({
    operationId: 'scimResourceTypes',
    summary: 'SCIM ResourceTypes: User and Group (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async types(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Res() reply: FastifyReply) {
    const { base } = await this.caller(req, tenant);
    const all = resourceTypes(base);
    this.send(reply, 200, listResponse(all.length, 1, all));
  }

  @Get('Schemas')
  @ApiOperation({
    operationId: 'scimSchemas',
    summary: 'SCIM Schemas of User and Group (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async schemaList(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Res() reply: FastifyReply) {
    await this.caller(req, tenant);
    const all = schemas();
    this.send(reply, 200, listResponse(all.length, 1, all));
  }

  @Get('Users')
  @ApiOperation({
    operationId: 'scimListUsers',
    summary:
      'SCIM Users of the tenant directory: filter `userName|externalId|id eq "…"` [and …], startIndex, count ≤ 200 (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async listUsers(
    @Req() req: FastifyRequest,
    @Param('tenant') tenant: string,
    @Query() query: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ) {
    const { tenantId, base } = await this.caller(req, tenant);
    const { startIndex, count } = readPage(query);
    const filters = typeof query.filter === 'string' ? parseScimFilter(query.filter, USER_FILTER_ATTRS) : [];
    const { total, rows } = await listUsers(this.db, tenantId, filters, startIndex, count);
    const groups = await groupsOfUsers(
      this.db,
      tenantId,
      rows.map((r) => r.username),
    );
    this.send(
      reply,
      200,
      listResponse(
        total,
        startIndex,
        rows.map((r) => userResource(r, groups.get(r.username) ?? [], base)),
      ),
    );
  }

  @Get('Users/:id')
  @ApiOperation({ operationId: 'scimGetUser', summary: 'One SCIM User (Bearer SCIM token; SCIM error bodies)', auth: 'none' })
  async getUser(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Param('id') id: string, @Res() reply: FastifyReply) {
    const { tenantId, base } = await this.caller(req, tenant);
    const row = await findUser(this.db, tenantId, id);
    const groups = await groupsOfUsers(this.db, tenantId, [row.username]);
    this.send(reply, 200, userResource(row, groups.get(row.username) ?? [], base));
  }

  @Post('Users')
  @ApiOperation({
    operationId: 'scimCreateUser',
    summary: 'Provision a directory user (409 uniqueness when the userName is taken). Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async createUser(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    const { tenantId, actor, base } = await this.caller(req, tenant);
    const row = await this.tx(tenantId, (q) => createScimUser(q, tenantId, body, actor));
    this.kick();
    this.send(reply, 201, userResource(row, [], base));
  }

  @Put('Users/:id')
  @ApiOperation({
    operationId: 'scimReplaceUser',
    summary:
      'Replace a SCIM User; active=false deprovisions (directory user disabled, console sessions and auth grants/tokens/vault entries revoked). Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async putUser(
    @Req() req: FastifyRequest,
    @Param('tenant') tenant: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ) {
    return this.updateUser(req, tenant, id, reply, () => body);
  }

  @Patch('Users/:id')
  @ApiOperation({
    operationId: 'scimPatchUser',
    summary:
      'PATCH a SCIM User (PatchOp as Okta and Entra ID send it, ≤ 100 operations); active=false deprovisions. Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async patchUser(
    @Req() req: FastifyRequest,
    @Param('tenant') tenant: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ) {
    return this.updateUser(req, tenant, id, reply, (current) => applyScimPatch(current, body));
  }

  private async updateUser(
    req: FastifyRequest,
    tenant: string,
    id: string,
    reply: FastifyReply,
    next: (current: Record<string, unknown>) => unknown,
  ) {
    const { tenantId, actor, base } = await this.caller(req, tenant);
    const row = await this.tx(tenantId, async (q) => {
      const cur = await findUser(q, tenantId, id, true);
      const { groups: _g, meta: _m, ...current } = userResource(cur, [], base);
      return saveScimUser(q, tenantId, cur, readUserInput(next(current)), actor);
    });
    this.kick();
    const groups = await groupsOfUsers(this.db, tenantId, [row.username]);
    this.send(reply, 200, userResource(row, groups.get(row.username) ?? [], base));
  }

  @Delete('Users/:id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'scimDeleteUser',
    summary: 'Deprovision and delete a SCIM User. Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
    status: 204,
  })
  async deleteUser(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Param('id') id: string, @Res() reply: FastifyReply) {
    const { tenantId, actor } = await this.caller(req, tenant);
    await this.tx(tenantId, async (q) => deleteScimUser(q, tenantId, await findUser(q, tenantId, id, true), actor));
    this.kick();
    void reply.code(204).send();
  }

  @Get('Groups')
  @ApiOperation({
    operationId: 'scimListGroups',
    summary:
      'SCIM Groups: filter `displayName|externalId|id eq "…"`, excludedAttributes=members, startIndex, count ≤ 200 (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async listGroups(
    @Req() req: FastifyRequest,
    @Param('tenant') tenant: string,
    @Query() query: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ) {
    const { tenantId, base } = await this.caller(req, tenant);
    const { startIndex, count } = readPage(query);
    const filters = typeof query.filter === 'string' ? parseScimFilter(query.filter, GROUP_FILTER_ATTRS) : [];
    const { total, rows } = await listGroups(this.db, tenantId, filters, startIndex, count);
    const withMembers = !excludesMembers(query);
    const out = await Promise.all(
      rows.map(async (r) => groupResource(r, withMembers ? await membersOf(this.db, tenantId, r.id) : undefined, base)),
    );
    this.send(reply, 200, listResponse(total, startIndex, out));
  }

  @Get('Groups/:id')
  @ApiOperation({ operationId: 'scimGetGroup', summary: 'One SCIM Group (Bearer SCIM token; SCIM error bodies)', auth: 'none' })
  async getGroup(
    @Req() req: FastifyRequest,
    @Param('tenant') tenant: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ) {
    const { tenantId, base } = await this.caller(req, tenant);
    const row = await findGroup(this.db, tenantId, id);
    this.send(reply, 200, groupResource(row, excludesMembers(query) ? undefined : await membersOf(this.db, tenantId, id), base));
  }

  @Post('Groups')
  @ApiOperation({
    operationId: 'scimCreateGroup',
    summary:
      'Create a SCIM Group (≤ 1000 members per request; groups the console SSO role map names make their members console admins). Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async createGroup(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Body() body: unknown, @Res() reply: FastifyReply) {
    const { tenantId, actor, base } = await this.caller(req, tenant);
    const row = await this.tx(tenantId, (q) => createGroup(q, tenantId, body, actor));
    this.send(reply, 201, groupResource(row, await membersOf(this.db, tenantId, row.id), base));
  }

  @Put('Groups/:id')
  @ApiOperation({
    operationId: 'scimReplaceGroup',
    summary: 'Replace a SCIM Group and its members. Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async putGroup(
    @Req() req: FastifyRequest,
    @Param('tenant') tenant: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ) {
    return this.updateGroup(req, tenant, id, reply, () => body);
  }

  @Patch('Groups/:id')
  @ApiOperation({
    operationId: 'scimPatchGroup',
    summary:
      'PATCH a SCIM Group (add/remove members in the Okta and Entra ID forms, rename). Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
  })
  async patchGroup(
    @Req() req: FastifyRequest,
    @Param('tenant') tenant: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ) {
    return this.updateGroup(req, tenant, id, reply, (current) => applyScimPatch(current, body));
  }

  private async updateGroup(
    req: FastifyRequest,
    tenant: string,
    id: string,
    reply: FastifyReply,
    next: (current: Record<string, unknown>) => unknown,
  ) {
    const { tenantId, actor, base } = await this.caller(req, tenant);
    const row = await this.tx(tenantId, async (q) => {
      const cur = await findGroup(q, tenantId, id, true);
      const { meta: _m, ...current } = groupResource(cur, await membersOf(q, tenantId, id), base);
      return saveGroup(q, tenantId, cur, next(current), actor);
    });
    this.send(reply, 200, groupResource(row, await membersOf(this.db, tenantId, row.id), base));
  }

  @Delete('Groups/:id')
  @ApiOperation({
    operationId: 'scimDeleteGroup',
    summary: 'Delete a SCIM Group (its members lose the console role it gave). Audited (Bearer SCIM token; SCIM error bodies)',
    auth: 'none',
    status: 204,
  })
  async deleteGroup(@Req() req: FastifyRequest, @Param('tenant') tenant: string, @Param('id') id: string, @Res() reply: FastifyReply) {
    const { tenantId, actor } = await this.caller(req, tenant);
    await this.tx(tenantId, async (q) => deleteGroup(q, tenantId, await findGroup(q, tenantId, id, true), actor));
    void reply.code(204).send();
  }

  /**
   * One SCIM change, serialised per tenant: group and user changes both recompute console admins
   * from memberships, and two of them interleaving could each compute from a stale view.
   */
  private tx<T>(tenantId: string, fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry-scim:${tenantId}`]);
      return fn(q);
    });
  }

  /** Sends queued revocations to the auth service now (the retry loop catches any that fail). */
  private kick(): void {
    this.revocations.kick();
  }
}

function excludesMembers(query: Record<string, unknown>): boolean {
  return (
    typeof query.excludedAttributes === 'string' && query.excludedAttributes.split(',').some((a) => a.trim().toLowerCase() === 'members')
  );
}
