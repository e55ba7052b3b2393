import type { Role } from './roles';
import { isUniqueViolation, type Queryable } from '../db/database';
import { ApiError } from '../http/api-error';
import { ADMIN_USERNAME, TENANT_ID, type AdminInput } from '../http/schemas';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../crypto/password-hash';

/** A `registry.tenant_admins` row. */
export interface AdminRow {
  tenant_id: string;
  username: string;
  name: string | null;
  /** NULL for admins who sign in only through the tenant's IdP (SSO / SCIM). */
  password_hash: string | null;
  created_at: Date;
  last_login_at: Date | null;
  disabled_at: Date | null;
  role: Role;
  /** Who manages the row: a password admin, or one made by SSO just-in-time or SCIM. */
  source: 'password' | 'sso' | 'scim';
}

/** The API view of an admin: never the hash. */
export function adminView(row: AdminRow) {
  return {
    username: row.username,
    name: row.name,
    role: row.role,
    createdAt: row.created_at,
    lastLoginAt: row.last_login_at,
    disabled: row.disabled_at !== null,
  };
}

/**
 * Creates a console admin inside the caller's transaction (the password is hashed first, outside
 * any lock). A taken username is a 409 naming `body.username` (disabled accounts keep theirs).
 */
export async function createAdmin(q: Queryable, tenantId: string, input: AdminInput, field = 'body.username'): Promise<AdminRow> {
  const hash = await hashPassword(input.password);
  try {
    const rows = await q.query<AdminRow>(
      'INSERT INTO registry.tenant_admins (tenant_id, username, name, password_hash, role) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [tenantId, input.username, input.name ?? null, hash, input.role ?? 'owner'],
    );
    return rows[0];
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(409, 'CONFLICT', `${field}: admin "${input.username}" already exists`, field);
    throw err;
  }
}

/** The tenant's admin when it exists and is not disabled (sessions and platform tokens re-check this on every request). */
export async function activeAdmin(q: Queryable, tenantId: string, username: string): Promise<AdminRow | undefined> {
  if (!TENANT_ID.test(tenantId) || !ADMIN_USERNAME.test(username)) return undefined;
  const rows = await q.query<AdminRow>(
    'SELECT * FROM registry.tenant_admins WHERE tenant_id = $1 AND username = $2 AND disabled_at IS NULL',
    [tenantId, username],
  );
  return rows[0];
}

/**
 * The password check behind the platform issuer's console login. Unknown tenant, unknown user,
 * disabled account and wrong password all answer `undefined` after the same scrypt work (a dummy
 * hash when there is no row), so neither the answer nor its latency tells them apart. A success
 * stamps `last_login_at`.
 */
export async function verifyLogin(q: Queryable, tenantId: string, username: string, password: string): Promise<AdminRow | undefined> {
  const rows =
    TENANT_ID.test(tenantId) && ADMIN_USERNAME.test(username)
      ? await q.query<AdminRow>('SELECT * FROM registry.tenant_admins WHERE tenant_id = $1 AND username = $2', [tenantId, username])
      : [];
  const row = rows[0];
  if (!row?.password_hash) return verifyAgainstDummy(password).then(() => undefined);
  const ok = await verifyPassword(password, row.password_hash);
  if (!ok || row.disabled_at !== null) return undefined;
  const updated = await q.query<AdminRow>(
    'UPDATE registry.tenant_admins SET last_login_at = now() WHERE tenant_id = $1 AND username = $2 AND disabled_at IS NULL RETURNING *',
    [tenantId, username],
  );
  return updated[0];
}
