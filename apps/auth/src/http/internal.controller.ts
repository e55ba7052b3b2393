import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import type { AuthTenant } from '../tenants/tenant-auth';
import { sendOAuthError } from './request-helpers';

/** True when the request carries `Authorization: Bearer <INTERNAL_TOKEN>` (and one is configured). */
export function internalCaller(s: AuthServices, req: FastifyRequest): boolean {
  const expected = s.config.INTERNAL_TOKEN;
  const got = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!expected || !got) return false;
  const a = Buffer.from(got);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Health and key management (tenants' issuers and `_platform`) for operators and the gateway (internal token required). */
@Controller()
export class InternalController {
  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {}

  @Get('healthz')
  health(): { status: string } {
    return { status: 'ok' };
  }

  @Post('internal/tenants/:tenant/keys/rotate')
  async rotate(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required');
    const tenant = this.issuer(tenantId);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', `unknown tenant: ${tenantId}`);
    const kid = await this.s.keys.rotate(tenant.id);
    this.s.providers.evict(tenant.id);
    void reply.send({ kid });
  }

  @Post('internal/tenants/:tenant/keys/:kid/retire')
  async retire(
    @Param('tenant') tenantId: string,
    @Param('kid') kid: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required');
    const tenant = this.issuer(tenantId);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', `unknown tenant: ${tenantId}`);
    const ok = await this.s.keys.retire(tenant.id, kid);
    this.s.providers.evict(tenant.id);
    if (!ok) return void sendOAuthError(reply, 404, 'invalid_request', `unknown or retired key: ${kid}`);
    void reply.send({ retired: kid });
  }

  /** A tenant's issuer, or the platform issuer under its reserved id (`_platform`). */
  private issuer(id: string): AuthTenant | undefined {
    const platform = this.s.platform?.issuer;
    return platform && id === platform.id ? platform : this.s.tenants.byId(id);
  }
}
