import type { Queryable } from '../db/database';
import type { AdminRow } from './admins';
import { sessionIdHash, type ConsoleSession } from '../http/console-session';

/** Records a new console session (at sign-in), so it can be ended server-side. */
export async function recordSession(q: Queryable, s: ConsoleSession): Promise<void> {
  await q.query('INSERT INTO registry.console_sessions (id_hash, tenant_id, username, expires_at) VALUES ($1, $2, $3, to_timestamp($4))', [
    sessionIdHash(s.sid),
    s.tid,
    s.username,
    s.exp,
  ]);
}

/**
 * The admin behind a session when the session is still live (recorded, not signed out, not
 * expired) and the admin still active — one query per console request.
 */
export async function sessionAdmin(q: Queryable, s: ConsoleSession): Promise<AdminRow | undefined> {
  const rows = await q.query<AdminRow>(
    `SELECT a.* FROM registry.console_sessions s
       JOIN registry.tenant_admins a ON a.tenant_id = s.tenant_id AND a.username = s.username
      WHERE s.id_hash = $1 AND s.tenant_id = $2 AND s.username = $3 AND s.revoked_at IS NULL AND s.expires_at > now() AND a.disabled_at IS NULL`,
    [sessionIdHash(s.sid), s.tid, s.username],
  );
  return rows[0];
}

/** Ends one session (sign-out): every copy of its cookie stops working at once. */
export async function revokeSession(q: Queryable, s: ConsoleSession): Promise<void> {
  await q.query('UPDATE registry.console_sessions SET revoked_at = now() WHERE id_hash = $1 AND tenant_id = $2 AND revoked_at IS NULL', [
    sessionIdHash(s.sid),
    s.tid,
  ]);
}

/** Ends every session of an admin (access removed); also drops long-expired rows of that admin. */
export async function revokeAdminSessions(q: Queryable, tenantId: string, username: string): Promise<void> {
  await q.query('UPDATE registry.console_sessions SET revoked_at = now() WHERE tenant_id = $1 AND username = $2 AND revoked_at IS NULL', [
    tenantId,
    username,
  ]);
  await q.query("DELETE FROM registry.console_sessions WHERE tenant_id = $1 AND username = $2 AND expires_at < now() - interval '1 day'", [
    tenantId,
    username,
  ]);
}
