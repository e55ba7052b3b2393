import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { internalCaller } from '../http/internal.controller';
import { sendOAuthError } from '../http/request-helpers';
import { accountIdOf, DIRECTORY_IDP_ID } from './subject';

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * The registry reports a directory user deprovisioned (SCIM `active: false` or DELETE): their
 * sessions, grants, codes, refresh tokens and vault entries here are deleted at once, rather than
 * waiting for the next refresh to be refused. 404 when this service does not serve the tenant.
 */
@Controller()
export class UserRevokeController {
  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {}

  @Post('internal/t/:tenant/users/:username/revoke')
  async revoke(
    @Param('tenant') tenantId: string,
    @Param('username') username: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required');
    if (!USERNAME.test(username)) return void sendOAuthError(reply, 400, 'invalid_request', 'username: must be a directory user name');
    const tenant = this.s.tenants.byId(tenantId);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', `unknown tenant: ${tenantId}`);
    const counts = await this.s.idpPurge.revokeSubject(tenant.id, accountIdOf(tenant.id, DIRECTORY_IDP_ID, username));
    this.s.logger.info(
      { event: 'user.revoke-tokens', tenant: tenant.id, ...counts },
      'deprovisioned directory user: sessions, grants, tokens and vault entries deleted',
    );
    void reply.code(200).header('cache-control', 'no-store').send(counts);
  }
}
