import { createHash, randomBytes } from 'node:crypto';
import type { SecretBox } from '@switchboard/secret-box';

/** The signed-in console session cookie (sealed `{tid, username, name, exp}`). */
export const SESSION_COOKIE = 'sb_console';
/** The sign-in in progress (sealed state, PKCE verifier and return path), scoped to `/console`. */
export const LOGIN_COOKIE = 'sb_console_login';
export const SESSION_SECONDS = 8 * 3600;
export const LOGIN_SECONDS = 10 * 60;
/** The request header cookie sessions require (a cross-site form or image cannot set it). */
export const CONSOLE_HEADER = 'x-switchboard-console';

// Distinct associated data: a login cookie can never be replayed as a session, nor the reverse.
const SESSION_AAD = 'registry-console-session';
const LOGIN_AAD = 'registry-console-login';
const SSO_LOGIN_AAD = 'registry-console-sso-login';

export interface ConsoleSession {
  /** Random session id; its SHA-256 is the row in `registry.console_sessions` (revocable server-side). */
  sid: string;
  tid: string;
  username: string;
  name: string | null;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export interface ConsoleLogin {
  state: string;
  verifier: string;
  returnTo: string;
  exp: number;
}

/** A sign-in through a tenant's own IdP in progress: the login fields plus the tenant and the OIDC nonce. */
export interface ConsoleSsoLogin extends ConsoleLogin {
  tid: string;
  nonce: string;
}

/**
 * Seals and opens the console's cookies with the registry's SecretBox (AES-256-GCM): the browser
 * holds only opaque blobs, never a token. Anything tampered with, expired or of the wrong shape
 * opens as `undefined`.
 */
export class ConsoleSessions {
  constructor(
    private readonly box: SecretBox,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  sealSession(s: Omit<ConsoleSession, 'exp' | 'sid'>): { value: string; session: ConsoleSession } {
    const session: ConsoleSession = { sid: randomBytes(32).toString('base64url'), ...s, exp: this.now() + SESSION_SECONDS };
    return { value: this.box.seal(JSON.stringify(session), SESSION_AAD), session };
  }

  openSession(value: string | undefined): ConsoleSession | undefined {
    const v = this.open(value, SESSION_AAD);
    if (!v || typeof v.sid !== 'string' || typeof v.tid !== 'string' || typeof v.username !== 'string' || typeof v.exp !== 'number')
      return undefined;
    if (v.exp <= this.now()) return undefined;
    return { sid: v.sid, tid: v.tid, username: v.username, name: typeof v.name === 'string' ? v.name : null, exp: v.exp };
  }

  sealLogin(l: Omit<ConsoleLogin, 'exp'>): string {
    return this.box.seal(JSON.stringify({ ...l, exp: this.now() + LOGIN_SECONDS }), LOGIN_AAD);
  }

  openLogin(value: string | undefined): ConsoleLogin | undefined {
    const v = this.open(value, LOGIN_AAD);
    if (!v || typeof v.state !== 'string' || typeof v.verifier !== 'string' || typeof v.returnTo !== 'string' || typeof v.exp !== 'number')
      return undefined;
    if (v.exp <= this.now()) return undefined;
    return { state: v.state, verifier: v.verifier, returnTo: v.returnTo, exp: v.exp };
  }

  sealSsoLogin(l: Omit<ConsoleSsoLogin, 'exp'>): string {
    return this.box.seal(JSON.stringify({ ...l, exp: this.now() + LOGIN_SECONDS }), SSO_LOGIN_AAD);
  }

  openSsoLogin(value: string | undefined): ConsoleSsoLogin | undefined {
    const v = this.open(value, SSO_LOGIN_AAD);
    const strings = ['state', 'verifier', 'returnTo', 'tid', 'nonce'] as const;
    if (!v || strings.some((k) => typeof v[k] !== 'string') || typeof v.exp !== 'number' || v.exp <= this.now()) return undefined;
    return {
      state: String(v.state),
      verifier: String(v.verifier),
      returnTo: String(v.returnTo),
      tid: String(v.tid),
      nonce: String(v.nonce),
      exp: v.exp,
    };
  }

  private open(value: string | undefined, aad: string): Record<string, unknown> | undefined {
    if (!value || value.length > 4096) return undefined;
    try {
      const parsed = JSON.parse(this.box.open(value, aad)) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
}

/** The stored form of a session id (the id itself exists only inside the sealed cookie). */
export function sessionIdHash(sid: string): string {
  return createHash('sha256').update(sid).digest('base64url');
}
