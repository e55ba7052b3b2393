import { ScimError } from '../http/scim-error';

/** Longest filter read, and most `and`-joined comparisons (IdPs send one or two). */
export const MAX_FILTER_LENGTH = 1024;
export const MAX_FILTER_CLAUSES = 4;

/** One `attribute eq "value"` comparison, attribute normalised to the spelling `attributes` lists. */
export interface ScimEquality {
  attribute: string;
  value: string;
}

const CLAUSE = /^\s*([A-Za-z][A-Za-z0-9._:-]{0,200})\s+(eq)\s+("(?:[^"\\]|\\.)*"|true|false)\s*/i;

/**
 * Parses the filters Okta and Entra ID send (RFC 7644 §3.4.2.2): equality comparisons on one
 * resource's attributes, joined by `and` (`userName eq "a@b"`, `externalId eq "x"`,
 * `displayName eq "Admins"`). Attribute names match case-insensitively, as the RFC says. Anything
 * else (other operators, `or`, `not`, value paths) is a 400 `invalidFilter` naming what was not
 * understood, rather than a silent full listing.
 */
export function parseScimFilter(filter: string, attributes: readonly string[]): ScimEquality[] {
  if (filter.length > MAX_FILTER_LENGTH) throw new ScimError(400, `filter: longer than ${MAX_FILTER_LENGTH} characters`, 'invalidFilter');
  const out: ScimEquality[] = [];
  let rest = filter;
  for (;;) {
    const m = CLAUSE.exec(rest);
    if (!m)
      throw new ScimError(
        400,
        `filter: cannot parse "${rest.trim().slice(0, 80)}"; supported: <attribute> eq "<value>" [and …]`,
        'invalidFilter',
      );
    const attribute = attributes.find((a) => a.toLowerCase() === m[1].toLowerCase());
    if (!attribute)
      throw new ScimError(400, `filter: attribute "${m[1]}" cannot be filtered on; supported: ${attributes.join(', ')}`, 'invalidFilter');
    const raw = m[3];
    out.push({ attribute, value: raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.toLowerCase() });
    if (out.length > MAX_FILTER_CLAUSES) throw new ScimError(400, `filter: at most ${MAX_FILTER_CLAUSES} comparisons`, 'invalidFilter');
    rest = rest.slice(m[0].length);
    if (rest.trim() === '') return out;
    const and = /^and\s+/i.exec(rest);
    if (!and) throw new ScimError(400, `filter: expected "and" before "${rest.trim().slice(0, 80)}"`, 'invalidFilter');
    rest = rest.slice(and[0].length);
  }
}
