import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';
import { internalCaller } from '../http/internal.controller';
import { sendOAuthError } from '../http/request-helpers';
import { evaluateIdJag } from './evaluate-id-jag';
import { IdJagRefusal } from './id-jag-refusal';

/**
 * The admin's test of an ID-JAG (registry → `POST /internal/tenants/:tenant/id-jag/check`,
 * internal token): what the tenant's token endpoint would decide about the assertion if the
 * client it names presented it — the subject and scopes, or the refusing check — without
 * spending its `jti` or issuing anything.
 */
@Controller()
export class IdJagCheckController {
  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {}

  @Post('internal/tenants/:tenant/id-jag/check')
  async check(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!internalCaller(this.s, req)) return void sendOAuthError(reply, 401, 'invalid_client', 'internal token required');
    const tenant = this.s.tenants.byId(tenantId);
    if (!tenant) return void sendOAuthError(reply, 404, 'invalid_request', `unknown tenant: ${tenantId}`);
    const assertion = (req.body as { assertion?: unknown } | undefined)?.assertion;
    let clientId = '';
    try {
      const claim = typeof assertion === 'string' ? decodeJwt(assertion).client_id : undefined;
      if (typeof claim === 'string') clientId = claim;
    } catch {
      // Not a JWT: evaluateIdJag names the check.
    }
    try {
      const d = await evaluateIdJag(tenant, { assertion, clientId }, this.s.enterprise.jwks);
      if (await this.s.enterprise.store.used(tenant.id, d.verified.idp.issuer, d.verified.jti)) {
        return void reply.send({ ok: false, check: 'jti', description: 'assertion was already used' });
      }
      return void reply.send({
        ok: true,
        issuer: d.verified.idp.issuer,
        clientId,
        subject: d.accountId,
        scopes: d.scopes,
        expiresAt: d.verified.expiresAt.toISOString(),
      });
    } catch (err) {
      if (!(err instanceof IdJagRefusal)) throw err;
      return void reply.send({ ok: false, check: err.check, description: err.description });
    }
  }
}
