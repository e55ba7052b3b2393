/** Stable string codes of seed-file failures (local, never on the wire). */
export type TenantSeedErrorCode = 'SEED_UNREADABLE' | 'SEED_INVALID';

/** The development tenants file cannot be used; the message lists every problem with its field. */
export class TenantSeedError extends Error {
  override readonly name = 'TenantSeedError';
  constructor(
    readonly code: TenantSeedErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
