import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { type Queryable, Database } from '../db/database';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { authPublicUrl } from '../http/public-urls';
import { audit } from '../model/audit';
import {
  directoryUserSchema,
  invitedUserResponse,
  inviteUserBody,
  passkeyParams,
  userLinkSchema,
  userParams,
  usersQuery,
  usersResponse,
} from './user-schemas';
import { createUser, issueLink, passkeysOf, userStatus, userView, type UserRow } from '../model/user-store';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { REGISTRY_CONFIG } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';

/**
 * The tenant user directory (issue 41): the people who sign in at the tenant's authorization
 * server when it has no enterprise IdP. Admins invite, disable, enable, hand out password-reset
 * links and remove passkeys; every change is audited. There is no e-mail server: the one-time
 * invite and reset links are returned to the admin, who passes them on.
 */
@Controller('v1')
@ApiTag('Users')
export class UsersController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
  ) {}

  @Get('users')
  @ApiOperation({
    operationId: 'listUsers',
    summary:
      'People in the tenant user directory with their status and passkeys (never hashes or keys), by user name, a page at a time (limit ≤ 1000, then `after` = `next`)',
    auth: 'tenant',
    query: usersQuery,
    response: usersResponse,
  })
  @UseGuards(TenantGuard)
  async list(@Tenant() { tenantId }: TenantPrincipal, @Query() query: unknown) {
    const { after, limit } = parseInput(usersQuery, query, 'query');
    const rows = await this.db.query<UserRow>(
      'SELECT * FROM registry.tenant_users WHERE tenant_id = $1 AND username > $2 ORDER BY username LIMIT $3',
      [tenantId, after ?? '', limit + 1],
    );
    const page = rows.slice(0, limit);
    const keys = await passkeysOf(
      this.db,
      tenantId,
      page.map((r) => r.username),
    );
    return {
      users: page.map((r) => userView(r, keys.get(r.username) ?? [])),
      next: rows.length > limit ? (page.at(-1)?.username ?? null) : null,
    };
  }

  @Post('users')
  @ApiOperation({
    operationId: 'inviteUser',
    summary:
      'Invite a person to the user directory; answers a one-time invite link (valid 72 h) for you to pass on — no e-mail is sent. 409 naming body.username when taken. Audited',
    auth: 'tenant',
    body: inviteUserBody,
    response: invitedUserResponse,
  })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async invite(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(inviteUserBody, body, 'body');
    const base = this.linkBase(tenantId);
    return this.db.tx(async (q) => {
      const row = await createUser(q, tenantId, input, actor);
      const link = await issueLink(q, tenantId, row.username, 'invite');
      await audit(q, tenantId, actor, 'user.invite', row.username, { name: row.name });
      return {
        user: userView(row, []),
        link: { purpose: 'invite' as const, url: `${base}/users/set-password?token=${link.token}`, expiresAt: link.expiresAt },
      };
    });
  }

  @Post('users/:username/reset-link')
  @ApiOperation({
    operationId: 'createUserResetLink',
    summary:
      'A one-time password link for the user (reset, valid 30 min; a fresh invite link while they are still invited). Replaces earlier unused links. 409 when disabled. Audited',
    auth: 'tenant',
    params: userParams,
    response: userLinkSchema,
  })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async resetLink(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { username } = parseInput(userParams, params, 'params');
    const base = this.linkBase(tenantId);
    return this.db.tx(async (q) => {
      const row = await this.lockUser(q, tenantId, username);
      const keys = await passkeysOf(q, tenantId, [username]);
      const status = userStatus(row, keys.get(username)?.length ?? 0);
      if (status === 'disabled')
        throw new ApiError(409, 'CONFLICT', `params.username: user "${username}" is disabled; enable them first`, 'params.username');
      const purpose = status === 'invited' ? 'invite' : 'reset';
      const link = await issueLink(q, tenantId, username, purpose);
      await audit(q, tenantId, actor, purpose === 'invite' ? 'user.reinvite' : 'user.reset-link', username);
      return { purpose, url: `${base}/users/set-password?token=${link.token}`, expiresAt: link.expiresAt };
    });
  }

  @Post('users/:username/disable')
  @ApiOperation({
    operationId: 'disableUser',
    summary: 'Disable a directory user: no password or passkey sign-in, unused links void. Audited',
    auth: 'tenant',
    params: userParams,
    response: directoryUserSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async disable(@Tenant() principal: TenantPrincipal, @Param() params: unknown) {
    return this.setDisabled(principal, params, true);
  }

  @Post('users/:username/enable')
  @ApiOperation({
    operationId: 'enableUser',
    summary: 'Enable a disabled directory user again. Audited',
    auth: 'tenant',
    params: userParams,
    response: directoryUserSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async enable(@Tenant() principal: TenantPrincipal, @Param() params: unknown) {
    return this.setDisabled(principal, params, false);
  }

  @Delete('users/:username/passkeys/:id')
  @ApiOperation({
    operationId: 'removeUserPasskey',
    summary: "Remove one of a directory user's passkeys. Audited",
    auth: 'tenant',
    params: passkeyParams,
    response: directoryUserSchema,
  })
  @UseGuards(TenantGuard)
  async removePasskey(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { username, id } = parseInput(passkeyParams, params, 'params');
    return this.db.tx(async (q) => {
      const row = await this.lockUser(q, tenantId, username);
      const gone = await q.query(
        'DELETE FROM registry.tenant_user_passkeys WHERE tenant_id = $1 AND username = $2 AND credential_id = $3 RETURNING 1',
        [tenantId, username, id],
      );
      if (gone.length === 0) throw ApiError.notFound('passkey', id, 'params.id');
      await audit(q, tenantId, actor, 'user.passkey-remove', username, { credentialId: id });
      const keys = await passkeysOf(q, tenantId, [username]);
      return userView(row, keys.get(username) ?? []);
    });
  }

  private async setDisabled({ tenantId, actor }: TenantPrincipal, params: unknown, disabled: boolean) {
    const { username } = parseInput(userParams, params, 'params');
    return this.db.tx(async (q) => {
      await this.lockUser(q, tenantId, username);
      const rows = await q.query<UserRow>(
        `UPDATE registry.tenant_users SET disabled_at = ${disabled ? 'coalesce(disabled_at, now())' : 'NULL'} WHERE tenant_id = $1 AND username = $2 RETURNING *`,
        [tenantId, username],
      );
      // A disabled user's pending links die with the account (enabling again needs a fresh link).
      if (disabled) await q.query('DELETE FROM registry.tenant_user_links WHERE tenant_id = $1 AND username = $2', [tenantId, username]);
      await audit(q, tenantId, actor, disabled ? 'user.disable' : 'user.enable', username);
      const keys = await passkeysOf(q, tenantId, [username]);
      return userView(rows[0], keys.get(username) ?? []);
    });
  }

  private async lockUser(q: Queryable, tenantId: string, username: string): Promise<UserRow> {
    const rows = await q.query<UserRow>('SELECT * FROM registry.tenant_users WHERE tenant_id = $1 AND username = $2 FOR UPDATE', [
      tenantId,
      username,
    ]);
    if (!rows[0]) throw ApiError.notFound('user', username, 'params.username');
    return rows[0];
  }

  /** Where the tenant's authorization server serves its pages (the links point there). */
  private linkBase(tenantId: string): string {
    if (this.config.GATEWAY_DOMAIN) return `https://${tenantId}.${this.config.GATEWAY_DOMAIN}`;
    const auth = authPublicUrl(this.config);
    if (!auth)
      throw new ApiError(
        409,
        'CONFLICT',
        'the registry does not know the auth service, so it cannot build sign-in links: set AUTH_PUBLIC_URL (or CONSOLE_ISSUER)',
      );
    return `${auth}/t/${tenantId}`;
  }
}
