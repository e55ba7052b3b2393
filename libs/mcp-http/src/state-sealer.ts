import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a sealed value is for; each purpose signs with its own derived key, so one can never pass for another. */
export type SealPurpose = 'session' | 'client-request' | 'request-state' | 'stream-event';

/** Longest sealed token accepted for opening (a header or a params field can be large; the check stays cheap). */
const MAX_TOKEN_LENGTH = 8192;

/**
 * Integrity-protects small JSON values that travel through the client and come back to any
 * replica: legacy session ids, server→client request ids, MRTR `requestState`. HMAC-SHA256
 * over base64url JSON, with a key derived per purpose (HKDF) from the configured state keys.
 * The first key signs; every key verifies, so keys rotate by prepending a new one. Not
 * encryption: sealed values are readable by the client and must hold nothing secret.
 */
export class StateSealer {
  private readonly keys: ReadonlyMap<SealPurpose, readonly Buffer[]>;

  /** @param secrets at least one key (≥ 32 bytes each); the first signs. */
  constructor(secrets: readonly Buffer[]) {
    if (secrets.length === 0) throw new Error('StateSealer needs at least one key');
    for (const secret of secrets) if (secret.length < 32) throw new Error('state keys must be at least 32 bytes');
    const purposes: SealPurpose[] = ['session', 'client-request', 'request-state', 'stream-event'];
    this.keys = new Map(purposes.map((p) => [p, secrets.map((s) => Buffer.from(hkdfSync('sha256', s, Buffer.alloc(0), `switchboard/${p}`, 32)))]));
  }

  /** A sealer with a random key: fine for one process (tests, a single dev gateway), not for replicas. */
  static ephemeral(): StateSealer {
    return new StateSealer([randomBytes(32)]);
  }

  /** Seals `data` (JSON) into `<base64url body>.<base64url tag>`. */
  seal(purpose: SealPurpose, data: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(data)).toString('base64url');
    return `${body}.${this.tag(this.keyring(purpose)[0]!, body)}`;
  }

  /** Opens a token sealed for `purpose`; undefined when it is malformed, altered, or sealed by a key we do not hold. */
  open(purpose: SealPurpose, token: string): Record<string, unknown> | undefined {
    if (token.length > MAX_TOKEN_LENGTH) return undefined;
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1));
    const valid = this.keyring(purpose).some((key) => {
      const expected = Buffer.from(this.tag(key, body));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!valid) return undefined;
    try {
      const data: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  private keyring(purpose: SealPurpose): readonly Buffer[] {
    return this.keys.get(purpose)!;
  }

  private tag(key: Buffer, body: string): string {
    return createHmac('sha256', key).update(body).digest('base64url');
  }
}
