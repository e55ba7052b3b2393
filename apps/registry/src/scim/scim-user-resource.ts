import { ADMIN_USERNAME } from '../http/schemas';
import type { UserRow } from '../model/user-store';
import { ScimError } from '../http/scim-error';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
/** Largest stored set of extra attributes per user (names, e-mails, the enterprise extension). */
export const MAX_USER_ATTRS_BYTES = 16 * 1024;

type Json = Record<string, unknown>;

/** A `registry.tenant_users` row with its SCIM columns. */
export interface ScimUserRow extends UserRow {
  scim_id: string;
  external_id: string | null;
  scim_attrs: Json | null;
  scim_updated_at: Date | null;
}

/** What a User representation says, validated: the columns, and the rest kept as attributes. */
export interface ScimUserInput {
  userName: string;
  externalId: string | null;
  active: boolean;
  displayName: string | null;
  attrs: Json;
}

/** SCIM booleans as Entra ID sends them too (`"False"` in PATCH values). */
export function scimBoolean(v: unknown, field: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw new ScimError(400, `${field}: must be a boolean`, 'invalidValue');
}

const SERVER_KEYS = new Set(['schemas', 'id', 'meta', 'groups', 'username', 'externalid', 'active', 'displayname', 'password']);

/** Validates a User representation (POST, PUT, or a patched resource). `userName` must be a directory user name. */
export function readUserInput(json: unknown): ScimUserInput {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new ScimError(400, 'body: must be a SCIM User object', 'invalidSyntax');
  const j = json as Json;
  const get = (name: string) => j[Object.keys(j).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name];
  const userName = get('userName');
  if (typeof userName !== 'string' || !ADMIN_USERNAME.test(userName))
    throw new ScimError(400, 'userName: must be 1-64 chars of A-Z a-z 0-9 . _ @ -', 'invalidValue');
  const externalId = get('externalId');
  if (externalId !== undefined && externalId !== null && (typeof externalId !== 'string' || externalId.length > 255))
    throw new ScimError(400, 'externalId: must be a string of at most 255 characters', 'invalidValue');
  const active = get('active') === undefined ? true : scimBoolean(get('active'), 'active');
  const name = get('name') as Json | undefined;
  const given = typeof name?.givenName === 'string' ? name.givenName : '';
  const family = typeof name?.familyName === 'string' ? name.familyName : '';
  const candidate = get('displayName') ?? name?.formatted ?? (`${given} ${family}`.trim() || null);
  const displayName = typeof candidate === 'string' && candidate.length > 0 ? candidate.slice(0, 120) : null;
  const attrs: Json = {};
  for (const [k, v] of Object.entries(j)) if (!SERVER_KEYS.has(k.toLowerCase())) attrs[k] = v;
  if (JSON.stringify(attrs).length > MAX_USER_ATTRS_BYTES)
    throw new ScimError(400, `body: the user's attributes exceed ${MAX_USER_ATTRS_BYTES} bytes`, 'invalidValue');
  return { userName, externalId: typeof externalId === 'string' ? externalId : null, active, displayName, attrs };
}

/** The User representation of a row (RFC 7643 §4.1), with its groups. */
export function userResource(row: ScimUserRow, groups: Array<{ id: string; display_name: string }>, base: string): Json {
  return {
    schemas: [USER_SCHEMA],
    id: row.scim_id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    userName: row.username,
    ...(row.name ? { displayName: row.name } : {}),
    ...(row.scim_attrs ?? {}),
    active: row.disabled_at === null,
    groups: groups.map((g) => ({ value: g.id, display: g.display_name, $ref: `${base}/Groups/${g.id}` })),
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: (row.scim_updated_at ?? row.created_at).toISOString(),
      location: `${base}/Users/${row.scim_id}`,
    },
  };
}
