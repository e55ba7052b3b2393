import { createParamDecorator, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Authenticator, type TenantPrincipal } from './authenticator';

/*
 * How a registry route authenticates (new controllers follow this):
 *
 *   @Get('things')
 *   @UseGuards(TenantGuard)
 *   async list(@Tenant() { tenantId, actor }: TenantPrincipal) { … }
 *
 * TenantGuard runs before the handler and its pipes: it authenticates the caller (API key, platform
 * token or console session) and checks the route's role in ROUTE_ROLES (model/roles.ts), answering
 * 401/403/503 through the global ApiExceptionFilter. @Tenant() hands the principal to the handler.
 * OperatorGuard and InternalGuard do the same for the operator key and the internal token.
 */

const PRINCIPAL = Symbol('tenantPrincipal');
type AuthenticatedRequest = FastifyRequest & { [PRINCIPAL]?: TenantPrincipal };

/** Authenticates the calling tenant and checks its role for the route; the principal is read with @Tenant(). */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(@Inject(Authenticator) private readonly auth: Authenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    req[PRINCIPAL] = await this.auth.tenant(req);
    return true;
  }
}

/** Admits only the operator (REGISTRY_OPERATOR_KEY as a Bearer token); 403 otherwise. */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(@Inject(Authenticator) private readonly auth: Authenticator) {}

  canActivate(context: ExecutionContext): boolean {
    this.auth.operator(context.switchToHttp().getRequest<FastifyRequest>());
    return true;
  }
}

/** Admits only gateways and the auth service (INTERNAL_TOKEN as a Bearer token); 401 otherwise. */
@Injectable()
export class InternalGuard implements CanActivate {
  constructor(@Inject(Authenticator) private readonly auth: Authenticator) {}

  canActivate(context: ExecutionContext): boolean {
    this.auth.internal(context.switchToHttp().getRequest<FastifyRequest>());
    return true;
  }
}

/** The principal TenantGuard authenticated; a route without the guard is a programming error, not a 401. */
export const Tenant = createParamDecorator((_data: unknown, context: ExecutionContext): TenantPrincipal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>()[PRINCIPAL];
  if (!principal) throw new Error('@Tenant() is used on a route without @UseGuards(TenantGuard)');
  return principal;
});
