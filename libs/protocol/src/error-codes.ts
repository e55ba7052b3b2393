/** JSON-RPC 2.0 and MCP error codes that cross the wire. Never reuse a code for another meaning. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Resource not found, up to 2025-11-25 (2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
  /** 2026-07-28: an HTTP header disagrees with the body (or a required one is missing). */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability the client did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the requested protocol version is not supported; data carries `supported` and `requested`. */
  UnsupportedProtocolVersion: -32022,
  /** A rate limit or quota refused the request; data carries `retryAfterSeconds` and the limit (ToolHive's code, so clients of both agree). */
  RateLimited: -32029,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];
