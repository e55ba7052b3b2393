import type { z } from 'zod';
import { ApiError } from './api-error';

/** How deep `nulPath` looks (inputs are small JSON documents; deeper ones are refused by their schemas). */
const MAX_DEPTH = 32;

/**
 * The path of the first string (value or key) holding a NUL character, if any. Postgres refuses
 * NUL in `text` and `jsonb`, and no HTTP header may carry one, so such input would otherwise end
 * as a 500 (or a secret that can never be sent) instead of a 400 naming the field.
 */
function nulPath(value: unknown, path: string[] = [], depth = 0): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [k, v] of entries) {
    if (k.includes('\u0000')) return [...path, k.replaceAll('\u0000', '\\u0000')];
    const found = nulPath(v, [...path, k], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Validates one external input (body, query, params) against its schema, once, at the edge.
 * Throws a 400 naming the first offending field (`body.url`, `query.surface`); every issue is
 * listed in `details.issues`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' | 'params'): z.infer<S> {
  const nul = nulPath(input);
  if (nul) {
    const field = [where, ...nul].join('.');
    const message = 'must not contain NUL (\\u0000) characters';
    throw new ApiError(400, 'VALIDATION', `${field}: ${message}`, field, { issues: [{ field, message }] });
  }
  const parsed = schema.safeParse(input ?? (where === 'body' ? undefined : {}));
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ field: [where, ...i.path.map(String)].join('.'), message: i.message }));
  const first = issues[0];
  const message = first ? `${first.field}: ${first.message}` : `invalid ${where}`;
  throw new ApiError(400, 'VALIDATION', message, first?.field, { issues });
}
