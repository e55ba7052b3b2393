import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { activeAdmin } from '../model/admins';
import { CONSOLE_HEADER, SESSION_COOKIE, type ConsoleSessions } from './console-session';
import { sessionAdmin } from '../model/session-store';
import { parseCookies } from './cookies';
import { PlatformTokenError, PlatformUnavailableError, type PlatformIssuer } from './platform-issuer';
import type { Database } from '../db/database';
import { hashApiKey } from '../model/api-keys';
import { hasRole, requiredRole, type Role } from '../model/roles';
import { ApiError } from './api-error';

/** Who is calling: a tenant, through one of its API keys, a platform access token or a console session. */
export interface TenantPrincipal {
  tenantId: string;
  /** For the audit log: `key:<key id>`, or `user:<username>` for a console admin. */
  actor: string;
  /** `api_key` (sbk_…), `token` (platform JWT, e.g. a CLI) or `session` (the console's cookie). */
  via: 'api_key' | 'token' | 'session';
  /** The signed-in admin (token and session only). */
  user?: { username: string; name: string | null };
  /** What the caller may do (the key's or the admin's role). */
  role: Role;
}

export interface AuthenticatorOptions {
  /** The platform issuer (CONSOLE_ISSUER); without it only API keys and sessions are accepted. */
  platform?: PlatformIssuer;
  sessions?: ConsoleSessions;
}

/**
 * Credential checks for the three audiences: tenants (`sbk_…` API keys by sha256 lookup,
 * platform access tokens, or the console's sealed session cookie), the operator (bootstrap key
 * from config) and gateways / the auth service (INTERNAL_TOKEN).
 */
export class Authenticator {
  constructor(
    private readonly db: Database,
    private readonly operatorKey: string,
    private readonly internalToken: string,
    private readonly options: AuthenticatorOptions = {},
  ) {}

  /**
   * The calling tenant, trying in order: `Authorization: Bearer sbk_…`; `Authorization: Bearer
   * <platform JWT>`; the `sb_console` cookie, which needs the `x-switchboard-console: 1` header
   * (a cross-site request cannot add it, so the cookie alone is never enough: CSRF). Token and
   * session users are re-checked against `tenant_admins` on every request (a disabled admin is
   * out at once). Then the caller's role must cover the route's (`ROUTE_ROLES`), else 403
   * FORBIDDEN naming the role needed.
   */
  async tenant(req: FastifyRequest): Promise<TenantPrincipal> {
    const principal = await this.identify(req);
    const needed = requiredRole(req.method, req.routeOptions?.url ?? req.url);
    if (!hasRole(principal.role, needed)) {
      throw new ApiError(
        403,
        'FORBIDDEN',
        `role: a ${principal.role} cannot ${req.method} ${req.routeOptions?.url ?? req.url}; it needs the ${needed} role`,
        'role',
        { role: principal.role, needed },
      );
    }
    return principal;
  }

  private async identify(req: FastifyRequest): Promise<TenantPrincipal> {
    if (req.headers.authorization === undefined) {
      const cookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
      if (cookie !== undefined && this.options.sessions) return this.session(req, cookie, this.options.sessions);
    }
    const token = bearer(req);
    if (token.startsWith('sbk_')) return this.apiKey(token);
    if (this.options.platform && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token))
      return this.platformToken(token, this.options.platform);
    throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: a tenant API key (sbk_…) is required', 'authorization');
  }

  private async apiKey(token: string): Promise<TenantPrincipal> {
    const rows = await this.db.query<{ id: string; tenant_id: string; role: Role }>(
      'UPDATE registry.api_keys SET last_used_at = now() WHERE key_hash = $1 AND revoked_at IS NULL RETURNING id, tenant_id, role',
      [hashApiKey(token)],
    );
    const row = rows[0];
    if (!row) throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: unknown or revoked API key', 'authorization');
    return { tenantId: row.tenant_id, actor: `key:${row.id}`, via: 'api_key', role: row.role };
  }

  private async platformToken(token: string, platform: PlatformIssuer): Promise<TenantPrincipal> {
    let identity;
    try {
      identity = await platform.verifyAccessToken(token);
    } catch (err) {
      if (err instanceof PlatformUnavailableError)
        throw new ApiError(503, 'UNAVAILABLE', 'authorization: the platform issuer is unavailable; retry later', 'authorization');
      if (err instanceof PlatformTokenError)
        throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: the platform access token was refused', 'authorization');
      throw err;
    }
    const admin = await activeAdmin(this.db, identity.tenantId, identity.username);
    if (!admin)
      throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: the admin of this token is unknown or disabled', 'authorization');
    return {
      tenantId: identity.tenantId,
      actor: `user:${admin.username}`,
      via: 'token',
      user: { username: admin.username, name: admin.name ?? identity.name },
      role: admin.role,
    };
  }

  private async session(req: FastifyRequest, cookie: string, sessions: ConsoleSessions): Promise<TenantPrincipal> {
    if (req.headers[CONSOLE_HEADER] !== '1')
      throw new ApiError(403, 'FORBIDDEN', `${CONSOLE_HEADER} header required for cookie sessions`, CONSOLE_HEADER);
    const session = sessions.openSession(cookie);
    if (!session)
      throw new ApiError(401, 'UNAUTHENTICATED', 'session: the console session expired or is invalid; sign in again', 'session');
    const admin = await sessionAdmin(this.db, session);
    if (!admin)
      throw new ApiError(
        401,
        'UNAUTHENTICATED',
        'session: this console session was signed out, has expired, or its admin was removed; sign in again',
        'session',
      );
    return {
      tenantId: session.tid,
      actor: `user:${admin.username}`,
      via: 'session',
      user: { username: admin.username, name: admin.name ?? session.name },
      role: admin.role,
    };
  }

  operator(req: FastifyRequest): void {
    if (!same(bearer(req), this.operatorKey))
      throw new ApiError(403, 'FORBIDDEN', 'authorization: the operator key is required', 'authorization');
  }

  internal(req: FastifyRequest): void {
    if (!same(bearer(req), this.internalToken))
      throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: the internal token is required', 'authorization');
  }
}

function bearer(req: FastifyRequest): string {
  const header = req.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!m) throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: a Bearer token is required', 'authorization');
  return m[1];
}

function same(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
