/** Stable string codes of admin API errors (never reused). */
export type ApiErrorCode =
  | 'VALIDATION'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'NAME_INVALID'
  | 'NAME_COLLISION'
  | 'URL_REFUSED'
  /** A tool is published without readOnlyHint, destructiveHint and openWorldHint (upstream or as overrides). */
  | 'HINTS_REQUIRED'
  /** A tool's inputSchema has a regex RE2 cannot run (backreference, lookaround); details.issues name the tool and JSON pointer. */
  | 'PATTERN_UNSUPPORTED'
  /** An `oauth_user` server has no connector (`PUT /v1/servers/:id/connector`) or no linked account (`POST /v1/servers/:id/connector/link`). */
  /** An item has poisoned-tool findings and the request did not set `acknowledgeFindings: true`; details.findings lists them. */
  | 'FINDINGS_UNACKNOWLEDGED'
  /** An item has a high-severity poisoned-tool finding and the tenant set `blockPoisoned`; the message names the rule. */
  | 'POISONED_TOOL_BLOCKED'
  | 'CONNECTOR_NOT_CONFIGURED'
  | 'CONNECTOR_NOT_LINKED'
  | 'UNAVAILABLE'
  | 'PAYLOAD_TOO_LARGE'
  | 'INTERNAL';

/** An admin API error: HTTP status, stable code, a message, and the offending field when there is one. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly field?: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static notFound(what: string, id: string, field?: string): ApiError {
    return new ApiError(404, 'NOT_FOUND', `${field ? `${field}: ` : ''}${what} "${id}" not found`, field);
  }
}

/** Postgres is unreachable: the API answers 503 with Retry-After. */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}
