import { randomUUID } from 'node:crypto';
import { isUniqueViolation, type Queryable } from '../db/database';
import { audit } from '../model/audit';
import { syncAdmins } from '../model/admin-sync';
import { ScimError } from '../http/scim-error';
import type { ScimEquality } from './scim-filter';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const GROUP_FILTER_ATTRS = ['displayName', 'externalId', 'id'] as const;
const GROUP_COLUMNS: Record<string, string> = { displayName: 'display_name', externalId: 'external_id', id: 'id::text' };
/** Groups per tenant, and members named in one request (a bigger group arrives over several PATCH requests). */
export const MAX_GROUPS_PER_TENANT = 1000;
export const MAX_MEMBERS_PER_REQUEST = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface GroupRow {
  tenant_id: string;
  id: string;
  display_name: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

type Json = Record<string, unknown>;

/** A Group's members as SCIM user ids and names. */
export async function membersOf(q: Queryable, tenantId: string, groupId: string): Promise<Array<{ id: string; username: string }>> {
  return q.query<{ id: string; username: string }>(
    'SELECT u.scim_id::text AS id, u.username FROM registry.scim_group_members m JOIN registry.tenant_users u USING (tenant_id, username) WHERE m.tenant_id = $1 AND m.group_id = $2 ORDER BY u.username',
    [tenantId, groupId],
  );
}

export function groupResource(row: GroupRow, members: Array<{ id: string; username: string }> | undefined, base: string): Json {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    displayName: row.display_name,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    ...(members ? { members: members.map((m) => ({ value: m.id, display: m.username, $ref: `${base}/Users/${m.id}` })) } : {}),
    meta: {
      resourceType: 'Group',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Groups/${row.id}`,
    },
  };
}

export async function listGroups(
  q: Queryable,
  tenantId: string,
  filters: ScimEquality[],
  startIndex: number,
  count: number,
): Promise<{ total: number; rows: GroupRow[] }> {
  const where = ['tenant_id = $1'];
  const args: unknown[] = [tenantId];
  for (const f of filters) {
    args.push(f.value);
    where.push(`${GROUP_COLUMNS[f.attribute]} = $${args.length}`);
  }
  const [{ n }] = await q.query<{ n: string }>(`SELECT count(*) AS n FROM registry.scim_groups WHERE ${where.join(' AND ')}`, args);
  const rows =
    count === 0
      ? []
      : await q.query<GroupRow>(
          `SELECT * FROM registry.scim_groups WHERE ${where.join(' AND ')} ORDER BY created_at, id OFFSET $${args.length + 1} LIMIT $${args.length + 2}`,
          [...args, startIndex - 1, count],
        );
  return { total: Number(n), rows };
}

export async function findGroup(q: Queryable, tenantId: string, id: string, lock = false): Promise<GroupRow> {
  const rows = UUID.test(id)
    ? await q.query<GroupRow>(`SELECT * FROM registry.scim_groups WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
        tenantId,
        id,
      ])
    : [];
  if (!rows[0]) throw new ScimError(404, `Group ${id} not found`);
  return rows[0];
}

/** Validates a Group representation: displayName, externalId, and members as SCIM user ids of this tenant (→ user names). */
async function readGroupInput(
  q: Queryable,
  tenantId: string,
  json: unknown,
): Promise<{ displayName: string; externalId: string | null; usernames: string[] | undefined }> {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new ScimError(400, 'body: must be a SCIM Group object', 'invalidSyntax');
  const j = json as Json;
  const get = (name: string) => j[Object.keys(j).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name];
  const displayName = get('displayName');
  if (typeof displayName !== 'string' || displayName.length < 1 || displayName.length > 255)
    throw new ScimError(400, 'displayName: must be a string of 1-255 characters', 'invalidValue');
  const externalId = get('externalId');
  if (externalId !== undefined && externalId !== null && (typeof externalId !== 'string' || externalId.length > 255))
    throw new ScimError(400, 'externalId: must be a string of at most 255 characters', 'invalidValue');
  const members = get('members');
  if (members === undefined) return { displayName, externalId: typeof externalId === 'string' ? externalId : null, usernames: undefined };
  if (!Array.isArray(members)) throw new ScimError(400, 'members: must be an array', 'invalidValue');
  if (members.length > MAX_MEMBERS_PER_REQUEST)
    throw new ScimError(400, `members: at most ${MAX_MEMBERS_PER_REQUEST} per request; add the rest with PATCH`, 'tooMany');
  const ids = members.map((m, i) => {
    const v = (m as Json)?.value;
    if (typeof v !== 'string' || !UUID.test(v)) throw new ScimError(400, `members[${i}].value: must be a User id`, 'invalidValue');
    return v.toLowerCase();
  });
  const found = await q.query<{ id: string; username: string }>(
    'SELECT scim_id::text AS id, username FROM registry.tenant_users WHERE tenant_id = $1 AND scim_id = ANY($2::uuid[])',
    [tenantId, [...new Set(ids)]],
  );
  const byId = new Map(found.map((f) => [f.id, f.username]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing) throw new ScimError(400, `members: no User ${missing} in this tenant`, 'invalidValue');
  return {
    displayName,
    externalId: typeof externalId === 'string' ? externalId : null,
    usernames: [...new Set(ids.map((id) => byId.get(id) as string))],
  };
}

export async function createGroup(q: Queryable, tenantId: string, body: unknown, actor: string): Promise<GroupRow> {
  const input = await readGroupInput(q, tenantId, body);
  await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry-scim-groups:${tenantId}`]);
  const [{ n }] = await q.query<{ n: string }>('SELECT count(*) AS n FROM registry.scim_groups WHERE tenant_id = $1', [tenantId]);
  if (Number(n) >= MAX_GROUPS_PER_TENANT)
    throw new ScimError(400, `displayName: at most ${MAX_GROUPS_PER_TENANT} groups per workspace`, 'tooMany');
  let row: GroupRow;
  try {
    [row] = await q.query<GroupRow>(
      'INSERT INTO registry.scim_groups (tenant_id, id, display_name, external_id) VALUES ($1, $2, $3, $4) RETURNING *',
      [tenantId, randomUUID(), input.displayName, input.externalId],
    );
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ScimError(409, `displayName: a group "${input.displayName}" already exists`, 'uniqueness', { cause: err });
    throw err;
  }
  await audit(q, tenantId, actor, 'scim.group.create', input.displayName, { id: row.id, members: input.usernames?.length ?? 0 });
  await setMembers(q, tenantId, row, input.usernames ?? [], actor);
  return row;
}

/** PUT/PATCH result: new name and, when `members` is present, exactly those members; admins follow. */
export async function saveGroup(q: Queryable, tenantId: string, row: GroupRow, body: unknown, actor: string): Promise<GroupRow> {
  const input = await readGroupInput(q, tenantId, body);
  let saved: GroupRow;
  try {
    [saved] = await q.query<GroupRow>(
      'UPDATE registry.scim_groups SET display_name = $3, external_id = $4, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING *',
      [tenantId, row.id, input.displayName, input.externalId],
    );
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ScimError(409, `displayName: a group "${input.displayName}" already exists`, 'uniqueness', { cause: err });
    throw err;
  }
  if (saved.display_name !== row.display_name)
    await audit(q, tenantId, actor, 'scim.group.rename', saved.display_name, { id: row.id, from: row.display_name });
  const current = (await membersOf(q, tenantId, row.id)).map((m) => m.username);
  // A rename can change the role its members get: they are all re-synced.
  await setMembers(q, tenantId, saved, input.usernames ?? current, actor, saved.display_name !== row.display_name);
  return saved;
}

async function setMembers(
  q: Queryable,
  tenantId: string,
  group: GroupRow,
  usernames: string[],
  actor: string,
  resyncAll = false,
): Promise<void> {
  const before = (await membersOf(q, tenantId, group.id)).map((m) => m.username);
  const added = usernames.filter((u) => !before.includes(u));
  const removed = before.filter((u) => !usernames.includes(u));
  if (removed.length > 0)
    await q.query('DELETE FROM registry.scim_group_members WHERE tenant_id = $1 AND group_id = $2 AND username = ANY($3)', [
      tenantId,
      group.id,
      removed,
    ]);
  if (added.length > 0) {
    await q.query(
      'INSERT INTO registry.scim_group_members (tenant_id, group_id, username) SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING',
      [tenantId, group.id, added],
    );
  }
  if (added.length + removed.length > 0)
    await audit(q, tenantId, actor, 'scim.group.members', group.display_name, { id: group.id, added, removed });
  await syncAdmins(q, tenantId, resyncAll ? [...new Set([...before, ...usernames])] : [...added, ...removed], actor);
}

export async function deleteGroup(q: Queryable, tenantId: string, row: GroupRow, actor: string): Promise<void> {
  const members = (await membersOf(q, tenantId, row.id)).map((m) => m.username);
  await q.query('DELETE FROM registry.scim_groups WHERE tenant_id = $1 AND id = $2', [tenantId, row.id]);
  await audit(q, tenantId, actor, 'scim.group.delete', row.display_name, { id: row.id, members: members.length });
  await syncAdmins(q, tenantId, members, actor);
}
