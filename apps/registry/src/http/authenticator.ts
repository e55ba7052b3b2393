import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/database';
import { hashApiKey } from '../tenants/api-keys';
import { ApiError } from './api-error';

/** Who is calling: a tenant (via one of its API keys). */
export interface TenantPrincipal {
  tenantId: string;
  /** `key:<key id>` for the audit log. */
  actor: string;
}

/**
 * Bearer-token checks for the three audiences: tenants (`sbk_…` API keys, sha256 lookup),
 * the operator (bootstrap key from config) and gateways (INTERNAL_TOKEN).
 */
export class Authenticator {
  constructor(
    private readonly db: Database,
    private readonly operatorKey: string,
    private readonly internalToken: string,
  ) {}

  async tenant(req: FastifyRequest): Promise<TenantPrincipal> {
    const token = bearer(req);
    if (!token.startsWith('sbk_')) throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: a tenant API key (sbk_…) is required', 'authorization');
    const rows = await this.db.query<{ id: string; tenant_id: string }>(
      'UPDATE registry.api_keys SET last_used_at = now() WHERE key_hash = $1 AND revoked_at IS NULL RETURNING id, tenant_id',
      [hashApiKey(token)],
    );
    const row = rows[0];
    if (!row) throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: unknown or revoked API key', 'authorization');
    return { tenantId: row.tenant_id, actor: `key:${row.id}` };
  }

  operator(req: FastifyRequest): void {
    if (!same(bearer(req), this.operatorKey)) throw new ApiError(403, 'FORBIDDEN', 'authorization: the operator key is required', 'authorization');
  }

  internal(req: FastifyRequest): void {
    if (!same(bearer(req), this.internalToken)) throw new ApiError(401, 'UNAUTHENTICATED', 'authorization: the internal token is required', 'authorization');
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
