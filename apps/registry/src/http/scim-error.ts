import { ApiError, DatabaseUnavailableError } from './api-error';

/** RFC 7644 §3.12 `scimType` values we answer with. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM protocol error: its HTTP status, the RFC 7644 `scimType` when one applies, and a detail naming the field. */
export class ScimError extends Error {
  override readonly name = 'ScimError';

  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: ScimType,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The SCIM error body (RFC 7644 §3.12) of anything a /scim route threw; the status is a string, as the RFC's examples and Entra ID expect. */
export function scimErrorBody(err: unknown): { status: number; body: Record<string, unknown>; retryAfter?: boolean } {
  const body = (status: number, detail: string, scimType?: string) => ({
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail,
  });
  if (err instanceof ScimError) return { status: err.status, body: body(err.status, err.message, err.scimType) };
  if (err instanceof ApiError) {
    const type = err.status === 409 ? 'uniqueness' : err.status === 400 ? 'invalidValue' : undefined;
    return { status: err.status, body: body(err.status, err.message, type) };
  }
  if (err instanceof DatabaseUnavailableError)
    return { status: 503, body: body(503, 'the registry database is unavailable; retry later'), retryAfter: true };
  const e = err as { statusCode?: number; getStatus?: () => number; message?: string };
  const status = typeof e?.getStatus === 'function' ? e.getStatus() : e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return { status, body: body(status, 'body: the request body is larger than the SCIM limit', 'tooMany') };
    if (status === 404) return { status, body: body(status, 'no such SCIM endpoint') };
    return { status, body: body(status, `body: ${e.message ?? 'bad request'}`, 'invalidSyntax') };
  }
  return { status: 500, body: body(500, 'internal error') };
}
