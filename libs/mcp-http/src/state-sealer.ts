import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a sealed value is for; each purpose signs with its own derived key, so one can never pass for another. */
export type SealPurpose = 'session' | 'client-request' | 'request-state' | 'stream-event' | 'upstream-task' | 'modern-upstream-task';

/** Longest sealed token accepted for opening (a header or a params field can be large; the check stays cheap). */
const MAX_TOKEN_LENGTH = 8192;

/**
 * How long each kind of sealed value is honoured when the sealer is not told (seconds). Legacy
 * sessions carry no authority (every request is still authenticated) and clients hold them for
 * days, so they live a week; the others name a call in flight and need only outlive it.
 */
export const DEFAULT_SEAL_TTL_S: Readonly<Record<SealPurpose, number>> = {
  session: 7 * 24 * 3600,
  'client-request': 3600,
  'request-state': 3600,
  'stream-event': 3600,
  'upstream-task': 3600,
  'modern-upstream-task': 3600,
};

/** Why a sealed value was refused: not ours (malformed, altered, another purpose or key), or past its `exp`. */
export type SealRefusal = 'invalid' | 'expired';

/** What {@link StateSealer.check} found. */
export type SealCheck = { ok: true; data: Record<string, unknown> } | { ok: false; reason: SealRefusal };

/**
 * Integrity-protects small JSON values that travel through the client and come back to any
 * replica: legacy session ids, server→client request ids, MRTR `requestState`. HMAC-SHA256
 * over base64url JSON, with a key derived per purpose (HKDF) from the configured state keys.
 * The first key signs; every key verifies, so keys rotate by prepending a new one. Not
 * encryption: sealed values are readable by the client and must hold nothing secret.
 *
 * Every sealed value carries `exp` (epoch seconds): a leaked or hoarded value stops working on
 * its own. A value without `exp` (sealed before expiry existed) is refused as expired.
 */
export class StateSealer {
  private readonly keys: ReadonlyMap<SealPurpose, readonly Buffer[]>;
  private readonly secretKeys: ReadonlyMap<SealPurpose, readonly Buffer[]>;

  /** @param secrets at least one key (≥ 32 bytes each); the first signs. */
  constructor(secrets: readonly Buffer[]) {
    if (secrets.length === 0) throw new Error('StateSealer needs at least one key');
    for (const secret of secrets) if (secret.length < 32) throw new Error('state keys must be at least 32 bytes');
    const purposes: SealPurpose[] = ['session', 'client-request', 'request-state', 'stream-event', 'upstream-task', 'modern-upstream-task'];
    this.keys = new Map(
      purposes.map((p) => [p, secrets.map((s) => Buffer.from(hkdfSync('sha256', s, Buffer.alloc(0), `switchboard/${p}`, 32)))]),
    );
    this.secretKeys = new Map(
      purposes.map((p) => [p, secrets.map((s) => Buffer.from(hkdfSync('sha256', s, Buffer.alloc(0), `switchboard/${p}/aead`, 32)))]),
    );
  }

  /** A sealer with a random key: fine for one process (tests, a single dev gateway), not for replicas. */
  static ephemeral(): StateSealer {
    return new StateSealer([randomBytes(32)]);
  }

  /**
   * Seals `data` (JSON) into `<base64url body>.<base64url tag>`, valid for `ttlSeconds`
   * (default: the purpose's {@link DEFAULT_SEAL_TTL_S}). `exp` is reserved: the sealer sets it.
   */
  seal(purpose: SealPurpose, data: Record<string, unknown>, ttlSeconds = DEFAULT_SEAL_TTL_S[purpose]): string {
    const body = Buffer.from(JSON.stringify({ ...data, exp: Math.floor(Date.now() / 1000) + ttlSeconds })).toString('base64url');
    return `${body}.${this.tag(this.keyring(purpose)[0]!, body)}`;
  }

  /** Opens a token sealed for `purpose` (without its `exp`); undefined when it is not ours or has expired (see {@link check} for which). */
  open(purpose: SealPurpose, token: string): Record<string, unknown> | undefined {
    const checked = this.check(purpose, token);
    return checked.ok ? checked.data : undefined;
  }

  /** Opens a token sealed for `purpose`, saying why when it refuses it (so callers can tell an expired value from a foreign one). */
  check(purpose: SealPurpose, token: string): SealCheck {
    const invalid: SealCheck = { ok: false, reason: 'invalid' };
    if (token.length > MAX_TOKEN_LENGTH) return invalid;
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return invalid;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1));
    const valid = this.keyring(purpose).some((key) => {
      const expected = Buffer.from(this.tag(key, body));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!valid) return invalid;
    let data: unknown;
    try {
      data = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return invalid;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return invalid;
    const { exp, ...rest } = data as Record<string, unknown>;
    if (typeof exp !== 'number' || exp * 1000 <= Date.now()) return { ok: false, reason: 'expired' };
    return { ok: true, data: rest };
  }

  /**
   * Like {@link seal}, but the value is also encrypted (AES-256-GCM, its own derived key): for
   * values the client must carry but not read (an upstream's session id inside a task handle).
   * Opened only by {@link openSecret}.
   */
  sealSecret(purpose: SealPurpose, data: Record<string, unknown>, ttlSeconds = DEFAULT_SEAL_TTL_S[purpose]): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.secretKeys.get(purpose)![0]!, iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([
      cipher.update(JSON.stringify({ ...data, exp: Math.floor(Date.now() / 1000) + ttlSeconds })),
      cipher.final(),
    ]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Opens a {@link sealSecret} token; says why when it refuses (not ours or altered, or past its `exp`). */
  checkSecret(purpose: SealPurpose, token: string): SealCheck {
    const invalid: SealCheck = { ok: false, reason: 'invalid' };
    if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) return invalid;
    const raw = Buffer.from(token, 'base64url');
    if (raw.length <= 28) return invalid;
    for (const key of this.secretKeys.get(purpose)!) {
      let plain: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(purpose));
        decipher.setAuthTag(raw.subarray(12, 28));
        plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        continue;
      }
      const data: unknown = JSON.parse(plain);
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return invalid;
      const { exp, ...rest } = data as Record<string, unknown>;
      if (typeof exp !== 'number' || exp * 1000 <= Date.now()) return { ok: false, reason: 'expired' };
      return { ok: true, data: rest };
    }
    return invalid;
  }

  private keyring(purpose: SealPurpose): readonly Buffer[] {
    return this.keys.get(purpose)!;
  }

  private tag(key: Buffer, body: string): string {
    return createHmac('sha256', key).update(body).digest('base64url');
  }
}
