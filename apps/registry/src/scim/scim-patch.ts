import { ScimError } from '../http/scim-error';

/** Operations per PATCH request (IdPs send a handful; Entra ID batches group members in one op). */
export const MAX_PATCH_OPS = 100;

export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const CORE_PREFIXES = ['urn:ietf:params:scim:schemas:core:2.0:User:', 'urn:ietf:params:scim:schemas:core:2.0:Group:'];

type Json = Record<string, unknown>;

interface ParsedPath {
  /** The attribute, or `urn:…:attr` kept as one key for extension schemas. */
  attr: string;
  /** `[sub eq "value"]` on a multi-valued attribute. */
  filter?: { sub: string; value: string };
  /** `.sub` after the attribute (or after the filter). */
  sub?: string;
}

/** Paths as Okta and Entra ID send them: `active`, `name.givenName`, `emails[type eq "work"].value`, `members[value eq "id"]`, `urn:…:enterprise:2.0:User:department`. */
export function parsePatchPath(path: string): ParsedPath {
  let p = path.trim();
  for (const prefix of CORE_PREFIXES) if (p.toLowerCase().startsWith(prefix.toLowerCase())) p = p.slice(prefix.length);
  if (p.startsWith('urn:')) {
    // An extension attribute: the schema URN is its container (`urn:…:User:department` → key `urn:…:User`, sub `department`).
    const cut = p.lastIndexOf(':');
    if (cut <= 4 || cut === p.length - 1) throw new ScimError(400, `path: "${path}" is not a valid attribute path`, 'invalidPath');
    return { attr: p.slice(0, cut), sub: p.slice(cut + 1) };
  }
  const m =
    /^([A-Za-z][A-Za-z0-9_-]{0,63})(?:\[\s*([A-Za-z][A-Za-z0-9_-]{0,63})\s+eq\s+("(?:[^"\\]|\\.)*")\s*\])?(?:\.([A-Za-z][A-Za-z0-9_-]{0,63}))?$/i.exec(
      p,
    );
  if (!m) throw new ScimError(400, `path: "${path}" is not a supported attribute path`, 'invalidPath');
  return { attr: m[1], ...(m[2] ? { filter: { sub: m[2], value: JSON.parse(m[3]) as string } } : {}), ...(m[4] ? { sub: m[4] } : {}) };
}

/** The key in `obj` matching `name` case-insensitively (SCIM attribute names are), else `name`. */
function keyOf(obj: Json, name: string): string {
  return Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
}

function matches(item: unknown, f: { sub: string; value: string }): boolean {
  if (typeof item !== 'object' || item === null) return false;
  return String((item as Json)[keyOf(item as Json, f.sub)]).toLowerCase() === f.value.toLowerCase();
}

/** Adds to a multi-valued attribute, skipping items whose `value` is already there (members). */
function addItems(list: unknown[], items: unknown[]): unknown[] {
  const seen = new Set<unknown>(
    list.map((i) => (typeof i === 'object' && i !== null ? (i as Json).value : undefined)).filter((v) => v !== undefined),
  );
  return [...list, ...items.filter((i) => !(typeof i === 'object' && i !== null && seen.has((i as Json).value)))];
}

function applyFiltered(target: Json, key: string, op: string, path: ParsedPath, value: unknown): void {
  const list = Array.isArray(target[key]) ? (target[key] as unknown[]) : [];
  const filter = path.filter as { sub: string; value: string };
  if (op === 'remove') {
    target[key] = path.sub
      ? list.map((i) => (matches(i, filter) ? omit(i as Json, path.sub as string) : i))
      : list.filter((i) => !matches(i, filter));
    return;
  }
  const hit = list.filter((i) => matches(i, filter));
  if (hit.length === 0) {
    // Entra ID adds `emails[type eq "work"].value` to a user without a work e-mail: the filter names the new item.
    if (op === 'replace' && !path.sub) throw new ScimError(400, `path: no ${key} item matches the filter`, 'noTarget');
    target[key] = [...list, path.sub ? { [filter.sub]: filter.value, [path.sub]: value } : value];
    return;
  }
  target[key] = list.map((i) => (matches(i, filter) ? (path.sub ? { ...(i as Json), [path.sub]: value } : value) : i));
}

function omit(o: Json, k: string): Json {
  const { [keyOf(o, k)]: _gone, ...rest } = o;
  return rest;
}

function applyOne(resource: Json, op: string, path: ParsedPath, value: unknown): void {
  const key = keyOf(resource, path.attr);
  if (path.filter) return applyFiltered(resource, key, op, path, value);
  if (path.sub) {
    const inner =
      typeof resource[key] === 'object' && resource[key] !== null && !Array.isArray(resource[key]) ? { ...(resource[key] as Json) } : {};
    if (op === 'remove') resource[key] = omit(inner, path.sub);
    else inner[keyOf(inner, path.sub)] = value;
    if (op !== 'remove') resource[key] = inner;
    return;
  }
  if (op === 'remove') {
    // `{op: remove, path: members, value: [{value: id}]}` (Okta, Entra ID) removes those members only.
    if (Array.isArray(value) && Array.isArray(resource[key])) {
      const gone = new Set(value.map((v) => (v as Json)?.value));
      resource[key] = (resource[key] as unknown[]).filter((i) => !gone.has((i as Json)?.value));
    } else delete resource[key];
    return;
  }
  if (op === 'add' && Array.isArray(resource[key]))
    resource[key] = addItems(resource[key] as unknown[], Array.isArray(value) ? value : [value]);
  else if (
    op === 'add' &&
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof resource[key] === 'object' &&
    resource[key] !== null
  )
    resource[key] = { ...(resource[key] as Json), ...(value as Json) };
  else resource[key] = value;
}

/**
 * Applies a PatchOp body (RFC 7644 §3.5.2) to a resource's JSON form and returns the new form;
 * the caller validates and stores it like a PUT. Operation names match case-insensitively
 * (Entra ID sends `Replace`); an op without a path merges its object value attribute by attribute
 * (Okta's `{op: replace, value: {active: false}}`).
 */
export function applyScimPatch(resource: Json, body: unknown): Json {
  const b = body as { schemas?: unknown; Operations?: unknown };
  if (!b || typeof b !== 'object' || !Array.isArray(b.schemas) || !b.schemas.includes(PATCH_SCHEMA))
    throw new ScimError(400, `schemas: must include ${PATCH_SCHEMA}`, 'invalidSyntax');
  if (!Array.isArray(b.Operations) || b.Operations.length === 0)
    throw new ScimError(400, 'Operations: must be a non-empty array', 'invalidSyntax');
  if (b.Operations.length > MAX_PATCH_OPS) throw new ScimError(400, `Operations: at most ${MAX_PATCH_OPS} per request`, 'tooMany');
  const out: Json = structuredClone(resource);
  b.Operations.forEach((raw: unknown, i: number) => {
    const o = (raw ?? {}) as { op?: unknown; path?: unknown; value?: unknown };
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : '';
    if (!['add', 'replace', 'remove'].includes(op))
      throw new ScimError(400, `Operations[${i}].op: must be add, replace or remove`, 'invalidSyntax');
    if (o.path === undefined || o.path === '') {
      if (op === 'remove') throw new ScimError(400, `Operations[${i}].path: remove needs a path`, 'noTarget');
      if (typeof o.value !== 'object' || o.value === null || Array.isArray(o.value))
        throw new ScimError(400, `Operations[${i}].value: an op without a path needs an object value`, 'invalidValue');
      for (const [k, v] of Object.entries(o.value as Json)) {
        // A schema URN key with an object value is a whole extension (`{"urn:…:enterprise:2.0:User": {…}}`), merged as one attribute.
        const objectExtension = k.startsWith('urn:') && typeof v === 'object' && v !== null && !CORE_PREFIXES.some((c) => c.startsWith(k));
        applyOne(out, op, objectExtension ? { attr: k } : parsePatchPath(k), v);
      }
      return;
    }
    if (typeof o.path !== 'string') throw new ScimError(400, `Operations[${i}].path: must be a string`, 'invalidPath');
    applyOne(out, op, parsePatchPath(o.path), o.value);
  });
  return out;
}
