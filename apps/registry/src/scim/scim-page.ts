import { ScimError } from '../http/scim-error';

/** Default and largest `count` of a list (RFC 7644 §3.4.2.4 lets the provider cap it). */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 200;

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** `startIndex` (1-based) and `count` from a list query; out-of-range values are clamped as the RFC says, junk is a 400. */
export function readPage(query: Record<string, unknown>): { startIndex: number; count: number } {
  const num = (v: unknown, field: string, dflt: number) => {
    if (v === undefined || v === '') return dflt;
    const n = Number(v);
    if (typeof v !== 'string' || !Number.isInteger(n)) throw new ScimError(400, `${field}: must be an integer`, 'invalidValue');
    return n;
  };
  return {
    startIndex: Math.min(2 ** 31 - 1, Math.max(1, num(query.startIndex, 'startIndex', 1))),
    count: Math.min(MAX_PAGE, Math.max(0, num(query.count, 'count', DEFAULT_PAGE))),
  };
}

export function listResponse(total: number, startIndex: number, resources: unknown[]) {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}
