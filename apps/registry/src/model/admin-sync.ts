import type { Queryable } from '../db/database';
import { revokeAdminSessions } from './session-store';
import { audit } from './audit';
import { ROLES, type Role } from './roles';

/** The strongest role of a set of group names under a group → role map (undefined: none maps). */
export function roleOfGroups(groups: readonly string[], roleMap: Readonly<Record<string, Role>>): Role | undefined {
  let best = -1;
  for (const g of groups) {
    const role = roleMap[g];
    if (role !== undefined) best = Math.max(best, ROLES.indexOf(role));
  }
  return best >= 0 ? ROLES[best] : undefined;
}

/**
 * Makes the console admins of `usernames` follow their SCIM groups (in the caller's transaction):
 * an active directory user in a group the console SSO setting maps to a role is an admin with the
 * strongest such role; one in no mapped group (or disabled) loses the admin row SSO or SCIM made,
 * with its console sessions revoked. Password admins are the console's to manage and are left alone.
 */
export async function syncAdmins(q: Queryable, tenantId: string, usernames: readonly string[], actor: string): Promise<void> {
  if (usernames.length === 0) return;
  const settings = await q.query<{ role_map: Record<string, Role> }>('SELECT role_map FROM registry.console_sso WHERE tenant_id = $1', [
    tenantId,
  ]);
  const roleMap = settings[0]?.role_map ?? {};
  const rows = await q.query<{ username: string; name: string | null; disabled: boolean; groups: string[] }>(
    `SELECT u.username, u.name, u.disabled_at IS NOT NULL AS disabled,
            coalesce(array_agg(g.display_name) FILTER (WHERE g.id IS NOT NULL), '{}') AS groups
       FROM registry.tenant_users u
       LEFT JOIN registry.scim_group_members m ON m.tenant_id = u.tenant_id AND m.username = u.username
       LEFT JOIN registry.scim_groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
      WHERE u.tenant_id = $1 AND u.username = ANY($2)
      GROUP BY u.username, u.name, u.disabled_at`,
    [tenantId, usernames],
  );
  const known = new Map(rows.map((r) => [r.username, r]));
  for (const username of usernames) {
    const r = known.get(username);
    const role = r && !r.disabled ? roleOfGroups(r.groups, roleMap) : undefined;
    if (role) await grantAdmin(q, tenantId, username, r?.name ?? null, role, actor);
    else await dropAdmin(q, tenantId, username, actor);
  }
}

async function grantAdmin(q: Queryable, tenantId: string, username: string, name: string | null, role: Role, actor: string): Promise<void> {
  const changed = await q.query<{ role: Role }>(
    `INSERT INTO registry.tenant_admins (tenant_id, username, name, password_hash, role, source) VALUES ($1, $2, $3, NULL, $4, 'scim')
     ON CONFLICT (tenant_id, username) DO UPDATE SET role = EXCLUDED.role, disabled_at = NULL
       WHERE registry.tenant_admins.source <> 'password' AND (registry.tenant_admins.role <> EXCLUDED.role OR registry.tenant_admins.disabled_at IS NOT NULL)
     RETURNING role`,
    [tenantId, username, name, role],
  );
  if (changed.length > 0) await audit(q, tenantId, actor, 'scim.admin.grant', username, { role });
}

async function dropAdmin(q: Queryable, tenantId: string, username: string, actor: string): Promise<void> {
  const gone = await q.query(
    "UPDATE registry.tenant_admins SET disabled_at = now() WHERE tenant_id = $1 AND username = $2 AND source <> 'password' AND disabled_at IS NULL RETURNING 1",
    [tenantId, username],
  );
  if (gone.length === 0) return;
  await revokeAdminSessions(q, tenantId, username);
  await audit(q, tenantId, actor, 'scim.admin.revoke', username);
}
