import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database';
import { audit } from '../model/audit';
import { createUser } from '../model/user-store';
import { syncAdmins } from '../model/admin-sync';
import { deprovisionUser, reactivateUser } from './deprovision';
import { ScimError } from '../http/scim-error';
import type { ScimEquality } from './scim-filter';
import { readUserInput, type ScimUserInput, type ScimUserRow } from './scim-user-resource';

/** Filterable User attributes and their columns. */
export const USER_FILTER_ATTRS = ['userName', 'externalId', 'id'] as const;
const USER_COLUMNS: Record<string, string> = { userName: 'lower(username)', externalId: 'external_id', id: 'scim_id::text' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A tenant's users matching every equality (userName case-insensitively, RFC 7643 §4.1.1), one page. */
export async function listUsers(
  q: Queryable,
  tenantId: string,
  filters: ScimEquality[],
  startIndex: number,
  count: number,
): Promise<{ total: number; rows: ScimUserRow[] }> {
  const where = ['tenant_id = $1'];
  const args: unknown[] = [tenantId];
  for (const f of filters) {
    args.push(f.attribute === 'userName' ? f.value.toLowerCase() : f.value);
    where.push(`${USER_COLUMNS[f.attribute]} = $${args.length}`);
  }
  const [{ n }] = await q.query<{ n: string }>(`SELECT count(*) AS n FROM registry.tenant_users WHERE ${where.join(' AND ')}`, args);
  const rows =
    count === 0
      ? []
      : await q.query<ScimUserRow>(
          `SELECT * FROM registry.tenant_users WHERE ${where.join(' AND ')} ORDER BY created_at, username OFFSET $${args.length + 1} LIMIT $${args.length + 2}`,
          [...args, startIndex - 1, count],
        );
  return { total: Number(n), rows: await withScimIds(q, rows) };
}

/** Directory users made before SCIM (invited in the console) get their SCIM id when SCIM first lists them. */
async function withScimIds(q: Queryable, rows: ScimUserRow[]): Promise<ScimUserRow[]> {
  return Promise.all(
    rows.map(async (r) =>
      r.scim_id
        ? r
        : ((
            await q.query<ScimUserRow>(
              'UPDATE registry.tenant_users SET scim_id = coalesce(scim_id, $3) WHERE tenant_id = $1 AND username = $2 RETURNING *',
              [r.tenant_id, r.username, randomUUID()],
            )
          )[0] ?? r),
    ),
  );
}

/** One user by SCIM id, locked for update when asked; 404 when unknown in this tenant. */
export async function findUser(q: Queryable, tenantId: string, id: string, lock = false): Promise<ScimUserRow> {
  const rows = UUID.test(id)
    ? await q.query<ScimUserRow>(`SELECT * FROM registry.tenant_users WHERE tenant_id = $1 AND scim_id = $2${lock ? ' FOR UPDATE' : ''}`, [
        tenantId,
        id,
      ])
    : [];
  if (!rows[0]) throw new ScimError(404, `User ${id} not found`);
  return rows[0];
}

/** POST /Users: a new directory user (invited: no password; they sign in through the tenant's IdP or a link an admin hands out). */
export async function createScimUser(q: Queryable, tenantId: string, body: unknown, actor: string): Promise<ScimUserRow> {
  const input = readUserInput(body);
  // SCIM user names are case-insensitive (RFC 7643 §4.1.1); the directory's key is not.
  const taken = await q.query('SELECT 1 FROM registry.tenant_users WHERE tenant_id = $1 AND lower(username) = lower($2)', [
    tenantId,
    input.userName,
  ]);
  if (taken.length > 0) throw new ScimError(409, `userName: "${input.userName}" is already taken`, 'uniqueness');
  await createUser(q, tenantId, { username: input.userName, ...(input.displayName ? { name: input.displayName } : {}) }, actor);
  const rows = await q.query<ScimUserRow>(
    'UPDATE registry.tenant_users SET scim_id = $3, external_id = $4, scim_attrs = $5, scim_updated_at = now() WHERE tenant_id = $1 AND username = $2 RETURNING *',
    [tenantId, input.userName, randomUUID(), input.externalId, JSON.stringify(input.attrs)],
  );
  await audit(q, tenantId, actor, 'scim.user.create', input.userName, { externalId: input.externalId, active: input.active });
  if (!input.active) await deprovisionUser(q, tenantId, input.userName, actor, 'scim.user.deactivate');
  return input.active ? rows[0] : findUser(q, tenantId, rows[0].scim_id);
}

/** PUT or PATCH result: stores the new representation; `active` changes deprovision or reactivate. `userName` is immutable here. */
export async function saveScimUser(
  q: Queryable,
  tenantId: string,
  row: ScimUserRow,
  input: ScimUserInput,
  actor: string,
): Promise<ScimUserRow> {
  if (input.userName.toLowerCase() !== row.username.toLowerCase())
    throw new ScimError(400, `userName: is "${row.username}" and cannot be changed (delete and create the user instead)`, 'mutability');
  await q.query(
    'UPDATE registry.tenant_users SET name = $3, external_id = $4, scim_attrs = $5, scim_updated_at = now() WHERE tenant_id = $1 AND username = $2',
    [tenantId, row.username, input.displayName, input.externalId, JSON.stringify(input.attrs)],
  );
  const wasActive = row.disabled_at === null;
  await audit(q, tenantId, actor, 'scim.user.update', row.username, { externalId: input.externalId, active: input.active });
  if (wasActive && !input.active) await deprovisionUser(q, tenantId, row.username, actor, 'scim.user.deactivate');
  if (!wasActive && input.active) await reactivateUser(q, tenantId, row.username, actor);
  await syncAdmins(q, tenantId, [row.username], actor);
  return findUser(q, tenantId, row.scim_id);
}

/** DELETE /Users/:id: deprovisioned, then the row goes (its group memberships, passkeys and links with it). */
export async function deleteScimUser(q: Queryable, tenantId: string, row: ScimUserRow, actor: string): Promise<void> {
  await deprovisionUser(q, tenantId, row.username, actor, 'scim.user.delete');
  await q.query('DELETE FROM registry.tenant_users WHERE tenant_id = $1 AND username = $2', [tenantId, row.username]);
}

export async function groupsOfUsers(
  q: Queryable,
  tenantId: string,
  usernames: string[],
): Promise<Map<string, Array<{ id: string; display_name: string }>>> {
  const out = new Map<string, Array<{ id: string; display_name: string }>>();
  if (usernames.length === 0) return out;
  const rows = await q.query<{ username: string; id: string; display_name: string }>(
    'SELECT m.username, g.id, g.display_name FROM registry.scim_group_members m JOIN registry.scim_groups g USING (tenant_id) WHERE m.tenant_id = $1 AND g.id = m.group_id AND m.username = ANY($2) ORDER BY g.display_name',
    [tenantId, usernames],
  );
  for (const r of rows) out.set(r.username, [...(out.get(r.username) ?? []), { id: r.id, display_name: r.display_name }]);
  return out;
}
