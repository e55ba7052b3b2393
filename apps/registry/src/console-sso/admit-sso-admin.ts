import type { Queryable } from '../db/database';
import type { AdminRow } from '../model/admins';
import { ADMIN_USERNAME } from '../http/schemas';
import { roleOfGroups } from '../model/admin-sync';
import { audit } from '../model/audit';
import type { SsoSettings } from './sso-settings';

/** Groups read from one ID token's group claim (a bigger list is refused, not truncated). */
export const MAX_GROUPS_IN_TOKEN = 500;

export type SsoAdmission = { ok: true; admin: AdminRow } | { ok: false; reason: string };

/** The group claim as a list: an array of strings, or one string. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] | undefined {
  const v = claims[claim];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.length <= MAX_GROUPS_IN_TOKEN) return v.filter((g): g is string => typeof g === 'string');
  return undefined;
}

/**
 * Who an ID token from the tenant's IdP signs in as, in the caller's transaction. The user name
 * comes from the configured claim; the role from the group claim through the role map. An admin
 * SSO made follows the mapped role (no mapped group: refused); a password admin keeps their
 * console role, a SCIM-made one the role its SCIM groups give. Without a row, just-in-time provisioning (when on) makes one with the mapped
 * role. A disabled admin, or a directory user SCIM deprovisioned, is refused: a sign-in never
 * undoes a deprovisioning.
 */
export async function admitSsoAdmin(
  q: Queryable,
  tenantId: string,
  s: SsoSettings,
  claims: Record<string, unknown>,
): Promise<SsoAdmission> {
  const username = claims[s.usernameClaim];
  if (typeof username !== 'string' || !ADMIN_USERNAME.test(username))
    return { ok: false, reason: `claim ${s.usernameClaim} is missing or not a console user name` };
  // An address the IdP itself says is unverified does not name anyone.
  if (s.usernameClaim === 'email' && claims.email_verified === false)
    return { ok: false, reason: `the IdP marks ${username} as unverified (email_verified: false)` };
  const groups = groupsOf(claims, s.groupClaim) ?? [];
  const role = roleOfGroups(groups, s.roleMap);
  const deprovisioned = await q.query(
    'SELECT 1 FROM registry.tenant_users WHERE tenant_id = $1 AND username = $2 AND disabled_at IS NOT NULL AND scim_id IS NOT NULL',
    [tenantId, username],
  );
  if (deprovisioned.length > 0) return { ok: false, reason: `${username} was deprovisioned by SCIM` };
  const rows = await q.query<AdminRow>('SELECT * FROM registry.tenant_admins WHERE tenant_id = $1 AND username = $2 FOR UPDATE', [
    tenantId,
    username,
  ]);
  const row = rows[0];
  if (row?.disabled_at) return { ok: false, reason: `admin ${username} is disabled` };
  // Password admins keep their console role; SCIM-made ones the role their SCIM groups give (SCIM is the authority, and an IdP may send no group claim).
  if (row && (row.source === 'password' || row.source === 'scim')) return { ok: true, admin: await stamp(q, tenantId, username) };
  if (!role) return { ok: false, reason: `none of ${username}'s groups maps to a console role` };
  if (row) {
    if (row.role !== role) await audit(q, tenantId, `user:${username}`, 'sso.admin.role', username, { from: row.role, to: role });
    await q.query('UPDATE registry.tenant_admins SET role = $3 WHERE tenant_id = $1 AND username = $2', [tenantId, username, role]);
    return { ok: true, admin: await stamp(q, tenantId, username) };
  }
  if (!s.jit) return { ok: false, reason: `${username} is not a console admin and just-in-time provisioning is off` };
  const name = typeof claims.name === 'string' ? claims.name.slice(0, 120) : null;
  await q.query(
    "INSERT INTO registry.tenant_admins (tenant_id, username, name, password_hash, role, source) VALUES ($1, $2, $3, NULL, $4, 'sso')",
    [tenantId, username, name, role],
  );
  await audit(q, tenantId, `user:${username}`, 'sso.admin.provision', username, {
    role,
    groups: groups.filter((g) => s.roleMap[g] !== undefined),
  });
  return { ok: true, admin: await stamp(q, tenantId, username) };
}

async function stamp(q: Queryable, tenantId: string, username: string): Promise<AdminRow> {
  const rows = await q.query<AdminRow>(
    'UPDATE registry.tenant_admins SET last_login_at = now() WHERE tenant_id = $1 AND username = $2 RETURNING *',
    [tenantId, username],
  );
  return rows[0];
}
