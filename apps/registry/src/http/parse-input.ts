import type { z } from 'zod';
import { ApiError } from './api-error';

/**
 * Validates one external input (body, query, params) against its schema, once, at the edge.
 * Throws a 400 naming the first offending field (`body.url`, `query.surface`); every issue is
 * listed in `details.issues`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query' | 'params'): z.infer<S> {
  const parsed = schema.safeParse(input ?? (where === 'body' ? undefined : {}));
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ field: [where, ...i.path.map(String)].join('.'), message: i.message }));
  const first = issues[0];
  const message = first ? `${first.field}: ${first.message}` : `invalid ${where}`;
  throw new ApiError(400, 'VALIDATION', message, first?.field, { issues });
}
