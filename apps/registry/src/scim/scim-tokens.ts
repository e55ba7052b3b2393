import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Database, Queryable } from '../db/database';
import { ScimError } from '../http/scim-error';

/** Live SCIM tokens per tenant (one per IdP app, plus one during a rotation, is the usual need). */
export const MAX_SCIM_TOKENS = 10;
const PREFIX = 'scim_';

export interface ScimTokenRow {
  id: string;
  tenant_id: string;
  name: string;
  created_at: Date;
  created_by: string;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export const hashScimToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function scimTokenView(r: ScimTokenRow) {
  return {
    id: r.id,
    name: r.name,
    createdAt: r.created_at,
    createdBy: r.created_by,
    lastUsedAt: r.last_used_at,
    revoked: r.revoked_at !== null,
  };
}

/** A new tenant-scoped SCIM token: only its hash is stored, the token is returned once. */
export async function createScimToken(
  q: Queryable,
  tenantId: string,
  name: string,
  actor: string,
): Promise<{ token: string; row: ScimTokenRow }> {
  await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry-scim-tokens:${tenantId}`]);
  const [{ n }] = await q.query<{ n: string }>(
    'SELECT count(*) AS n FROM registry.scim_tokens WHERE tenant_id = $1 AND revoked_at IS NULL',
    [tenantId],
  );
  if (Number(n) >= MAX_SCIM_TOKENS)
    return Promise.reject(new ScimError(409, `at most ${MAX_SCIM_TOKENS} live SCIM tokens; revoke one first`));
  const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = `st_${randomBytes(8).toString('hex')}`;
  const rows = await q.query<ScimTokenRow>(
    'INSERT INTO registry.scim_tokens (id, tenant_id, token_hash, name, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [id, tenantId, hashScimToken(token), name, actor],
  );
  return { token, row: rows[0] };
}

/**
 * The SCIM caller: `Authorization: Bearer scim_…` naming a live token of the tenant in the path.
 * A token of another tenant is refused like an unknown one (401), so ids cannot be probed across tenants.
 */
export async function authenticateScim(db: Database, req: FastifyRequest, tenantId: string): Promise<{ actor: string }> {
  const m = /^Bearer\s+(scim_[A-Za-z0-9_-]{20,100})$/i.exec(req.headers.authorization ?? '');
  if (!m) throw new ScimError(401, 'authorization: a SCIM bearer token (scim_…) is required');
  const rows = await db.query<{ id: string }>(
    'UPDATE registry.scim_tokens SET last_used_at = now() WHERE token_hash = $1 AND tenant_id = $2 AND revoked_at IS NULL RETURNING id',
    [hashScimToken(m[1]), tenantId],
  );
  if (!rows[0]) throw new ScimError(401, 'authorization: unknown or revoked SCIM token');
  return { actor: `scim:${rows[0].id}` };
}
