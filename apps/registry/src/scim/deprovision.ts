import type { Queryable } from '../db/database';
import { revokeAdminSessions } from '../model/session-store';
import { audit } from '../model/audit';

/**
 * Takes a directory user out (SCIM `active: false` or DELETE), in the caller's transaction: the
 * user is disabled with every session and refresh token issued before now refused (the auth
 * service re-checks `sessions_valid_after`), unused links die, the console admin of the same name
 * that SSO or SCIM made is disabled with its console sessions revoked, and a revocation is queued
 * for the auth service to delete the user's grants, tokens and vault entries (see UserRevocations).
 */
export async function deprovisionUser(
  q: Queryable,
  tenantId: string,
  username: string,
  actor: string,
  action: 'scim.user.deactivate' | 'scim.user.delete',
): Promise<void> {
  await q.query(
    'UPDATE registry.tenant_users SET disabled_at = coalesce(disabled_at, now()), sessions_valid_after = now(), scim_updated_at = now() WHERE tenant_id = $1 AND username = $2',
    [tenantId, username],
  );
  await q.query('DELETE FROM registry.tenant_user_links WHERE tenant_id = $1 AND username = $2', [tenantId, username]);
  const admins = await q.query<{ username: string }>(
    "UPDATE registry.tenant_admins SET disabled_at = coalesce(disabled_at, now()) WHERE tenant_id = $1 AND username = $2 AND source IN ('sso', 'scim') RETURNING username",
    [tenantId, username],
  );
  if (admins.length > 0) await revokeAdminSessions(q, tenantId, username);
  await q.query('INSERT INTO registry.user_revocations (tenant_id, username) VALUES ($1, $2)', [tenantId, username]);
  await audit(q, tenantId, actor, action, username, { consoleAdminDisabled: admins.length > 0 });
}

/** Lets a deprovisioned user back in (SCIM `active: true`); their console admin comes back through the group sync. */
export async function reactivateUser(q: Queryable, tenantId: string, username: string, actor: string): Promise<void> {
  await q.query('UPDATE registry.tenant_users SET disabled_at = NULL, scim_updated_at = now() WHERE tenant_id = $1 AND username = $2', [
    tenantId,
    username,
  ]);
  await audit(q, tenantId, actor, 'scim.user.reactivate', username);
}
