import type { Logger } from 'pino';
import type { AuthLimits } from '../http/auth-limits';
import type { AccountLockout } from '../platform/account-lockout';
import type { VerificationSlots } from '../platform/verification-slots';
import { TENANT_ID, USERNAME } from '../tenants/identifiers';
import { callDirectory, type DirectoryAnswer, type DirectoryTarget } from './directory-client';
import { DIRECTORY_IDP_ID } from './subject';

export interface DirectoryUser {
  username: string;
  name: string;
}

export interface StoredPasskey {
  username: string;
  name: string;
  publicKey: string;
  counter: number;
  transports: string[];
}

export type Verdict<T> = { outcome: 'ok'; value: T } | { outcome: 'denied' } | { outcome: 'unavailable'; reason: string };

function verdict<T, R>(a: DirectoryAnswer<T>, map: (body: T) => R | undefined): Verdict<R> {
  if (a.outcome === 'unavailable') return a;
  if (a.outcome === 'refused') return { outcome: 'denied' };
  const value = map(a.body);
  return value === undefined ? { outcome: 'unavailable', reason: 'registry answered an unexpected body' } : { outcome: 'ok', value };
}

const str = (v: unknown): v is string => typeof v === 'string';

/**
 * The tenant user directory as the auth service sees it: the registry stores the users, their
 * scrypt password hashes (the console admins' helper) and passkeys; this asks it over the
 * internal endpoints. Sign-in attempts share the console sign-in's guards: a per-IP limiter, a
 * cap on verifications in flight, and per-account lockout with exponential backoff.
 */
export class UserDirectory {
  constructor(
    /** Undefined when REGISTRY_INTERNAL_URL or INTERNAL_TOKEN is unset: the directory is unavailable. */
    readonly target: DirectoryTarget | undefined,
    readonly limits: AuthLimits,
    readonly slots: VerificationSlots,
    readonly lockout: AccountLockout,
  ) {}

  get configured(): boolean {
    return this.target !== undefined;
  }

  /** The lockout key of a directory account (apart from console accounts). */
  lockoutKey(tenantId: string, username: string): string {
    return `dir:${tenantId}|${username.toLowerCase()}`;
  }

  async verifyPassword(tenantId: string, username: string, password: string): Promise<Verdict<DirectoryUser>> {
    const a = await this.call<Record<string, unknown>>('verify-password', { tenant: tenantId, username, password });
    return verdict(a, (b) =>
      b.ok === true && b.tenant === tenantId && str(b.username) && USERNAME.test(b.username)
        ? { username: b.username, name: str(b.name) ? b.name.slice(0, 200) : b.username }
        : undefined,
    );
  }

  async linkInfo(
    tenantId: string,
    token: string,
  ): Promise<Verdict<{ username: string; name: string | null; purpose: 'invite' | 'reset' }>> {
    const a = await this.call<Record<string, unknown>>('link', { tenant: tenantId, token });
    return verdict(a, (b) =>
      str(b.username) && USERNAME.test(b.username) && (b.purpose === 'invite' || b.purpose === 'reset')
        ? { username: b.username, name: str(b.name) ? b.name : null, purpose: b.purpose }
        : undefined,
    );
  }

  async redeemLink(tenantId: string, token: string, password: string): Promise<Verdict<{ username: string }>> {
    const a = await this.call<Record<string, unknown>>('redeem-link', { tenant: tenantId, token, password });
    return verdict(a, (b) => (str(b.username) && USERNAME.test(b.username) ? { username: b.username } : undefined));
  }

  async passkeysOf(
    tenantId: string,
    username: string,
  ): Promise<Verdict<{ name: string; validAfter: number; passkeys: Array<{ credentialId: string; transports: string[] }> }>> {
    const a = await this.call<Record<string, unknown>>('passkeys/of-user', { tenant: tenantId, username });
    return verdict(a, (b) =>
      Array.isArray(b.passkeys)
        ? {
            name: str(b.name) ? b.name : username,
            validAfter: typeof b.validAfter === 'number' ? b.validAfter : 0,
            passkeys: (b.passkeys as Array<Record<string, unknown>>)
              .filter((p) => str(p.credentialId))
              .map((p) => ({
                credentialId: String(p.credentialId),
                transports: Array.isArray(p.transports) ? p.transports.filter(str) : [],
              })),
          }
        : undefined,
    );
  }

  async lookupPasskey(tenantId: string, credentialId: string): Promise<Verdict<StoredPasskey>> {
    const a = await this.call<Record<string, unknown>>('passkeys/lookup', { tenant: tenantId, credentialId });
    return verdict(a, (b) =>
      str(b.username) && USERNAME.test(b.username) && str(b.publicKey) && typeof b.counter === 'number'
        ? {
            username: b.username,
            name: str(b.name) ? b.name : b.username,
            publicKey: b.publicKey,
            counter: b.counter,
            transports: Array.isArray(b.transports) ? b.transports.filter(str) : [],
          }
        : undefined,
    );
  }

  async addPasskey(
    tenantId: string,
    p: { username: string; credentialId: string; publicKey: string; counter: number; transports: string[]; name: string },
  ): Promise<Verdict<true>> {
    const a = await this.call<Record<string, unknown>>('passkeys/add', { tenant: tenantId, ...p });
    return verdict(a, () => true as const);
  }

  async passkeyUsed(tenantId: string, credentialId: string, counter: number): Promise<Verdict<true>> {
    const a = await this.call<Record<string, unknown>>('passkeys/used', { tenant: tenantId, credentialId, counter });
    return verdict(a, () => true as const);
  }

  /**
   * Whether a signed-in account still exists: for directory subjects (`<tenant>|dir|<user>`), that
   * the user is enabled at the registry and, when `issuedAt` (epoch seconds of the session or
   * token) is given, that it did not begin in a second before their last password change (token
   * times are whole seconds: one begun in the same second is kept). Other subjects are not the
   * directory's to judge. While the registry cannot be reached the account stays usable (logged):
   * an outage must not sign out every directory user; a disable applies once it answers again.
   */
  async accountActive(tenantId: string, accountId: string, issuedAt: number | undefined, logger: Pick<Logger, 'warn'>): Promise<boolean> {
    const prefix = `${tenantId}|${DIRECTORY_IDP_ID}|`;
    if (!accountId.startsWith(prefix)) return true;
    const username = accountId.slice(prefix.length);
    if (!USERNAME.test(username)) return false;
    const a = await this.passkeysOf(tenantId, username);
    if (a.outcome === 'unavailable')
      logger.warn({ tenant: tenantId, reason: a.reason }, 'directory account check unavailable; the session stays valid');
    if (a.outcome === 'ok' && issuedAt !== undefined && issuedAt < a.value.validAfter) return false;
    return a.outcome !== 'denied';
  }

  private async call<T>(path: string, body: Record<string, unknown>): Promise<DirectoryAnswer<T>> {
    if (!this.target)
      return { outcome: 'unavailable', reason: 'the user directory is not configured (REGISTRY_INTERNAL_URL and INTERNAL_TOKEN)' };
    if (!TENANT_ID.test(String(body.tenant))) return { outcome: 'refused', status: 400 };
    return callDirectory<T>(this.target, path, body);
  }
}
