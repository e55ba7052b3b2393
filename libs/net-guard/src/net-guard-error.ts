/** Stable codes of refused URLs; they never cross the wire as JSON-RPC codes. */
export type NetGuardCode = 'NET_GUARD_BAD_URL' | 'NET_GUARD_SCHEME' | 'NET_GUARD_BLOCKED_ADDRESS' | 'NET_GUARD_DNS' | 'NET_GUARD_REDIRECT';

/** A URL or connection refused by the SSRF guard; `message` is safe to show to the tenant. */
export class NetGuardError extends Error {
  override readonly name = 'NetGuardError';

  constructor(
    readonly code: NetGuardCode,
    message: string,
    readonly details: { url?: string; host?: string; address?: string; range?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
