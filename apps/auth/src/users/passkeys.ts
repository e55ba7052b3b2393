import { createHash } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AuthServices } from '../auth-services';
import type { AuthTenant } from '../tenants/tenant-auth';
import type { DirectoryUser, Verdict } from './user-directory';

/** How long a WebAuthn challenge may be answered (the ceremony is interactive). */
const CHALLENGE_TTL_S = 300;
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** The relying party of a tenant: its authorization server's public origin (RP id = its host name). */
export function relyingParty(tenant: AuthTenant): { rpID: string; origin: string } {
  const url = new URL(tenant.issuer);
  return { rpID: url.hostname, origin: url.origin };
}

/** The challenge a browser signed, read from its clientDataJSON (undefined when malformed). */
function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | undefined {
  const raw = response.response?.clientDataJSON;
  if (typeof raw !== 'string' || raw.length > 4096) return undefined;
  try {
    const c = (JSON.parse(Buffer.from(raw, 'base64url').toString()) as { challenge?: unknown }).challenge;
    return typeof c === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(c) ? c : undefined;
  } catch {
    return undefined;
  }
}

function transports(list: string[]): AuthenticatorTransport[] {
  return list.filter((t) => TRANSPORTS.has(t)) as AuthenticatorTransport[];
}

/**
 * Passkey ceremonies with @simplewebauthn/server. Every challenge is stored server-side
 * (single use, five minutes, bound to the tenant and to the interaction or user it was issued
 * for) and taken out before the answer is verified, so an assertion cannot be replayed.
 */
export class Passkeys {
  constructor(private readonly s: AuthServices) {}

  /** Options for signing in to interaction `uid` with any discoverable passkey of this tenant. */
  async signInOptions(tenant: AuthTenant, uid: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({
      rpID: relyingParty(tenant).rpID,
      userVerification: 'preferred',
      allowCredentials: [],
    });
    await this.s.federation.put(options.challenge, tenant.id, 'passkey-signin', { uid }, CHALLENGE_TTL_S);
    return options;
  }

  /** Verifies a sign-in assertion for interaction `uid`: the directory user it belongs to, or denied. */
  async verifySignIn(tenant: AuthTenant, uid: string, response: AuthenticationResponseJSON): Promise<Verdict<DirectoryUser>> {
    const challenge = challengeOf(response);
    const saved = challenge ? await this.s.federation.take<{ uid: string }>(challenge, tenant.id, 'passkey-signin') : undefined;
    if (!challenge || saved?.uid !== uid || typeof response.id !== 'string') return { outcome: 'denied' };
    const stored = await this.s.users.lookupPasskey(tenant.id, response.id);
    if (stored.outcome !== 'ok') return stored;
    const rp = relyingParty(tenant);
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpID,
        requireUserVerification: false,
        credential: {
          id: response.id,
          publicKey: new Uint8Array(Buffer.from(stored.value.publicKey, 'base64url')),
          counter: stored.value.counter,
          transports: transports(stored.value.transports),
        },
      });
    } catch (err) {
      this.s.logger.info({ tenant: tenant.id, err: (err as Error).message }, 'passkey sign-in refused');
      return { outcome: 'denied' };
    }
    if (!verified.verified) return { outcome: 'denied' };
    const used = await this.s.users.passkeyUsed(tenant.id, response.id, verified.authenticationInfo.newCounter);
    if (used.outcome === 'unavailable') return used;
    return { outcome: 'ok', value: { username: stored.value.username, name: stored.value.name } };
  }

  /** Options for registering a new passkey of `username` (their existing ones are excluded). */
  async registrationOptions(tenant: AuthTenant, username: string): Promise<Verdict<PublicKeyCredentialCreationOptionsJSON>> {
    const mine = await this.s.users.passkeysOf(tenant.id, username);
    if (mine.outcome !== 'ok') return mine;
    const options = await generateRegistrationOptions({
      rpName: tenant.name,
      rpID: relyingParty(tenant).rpID,
      userName: username,
      userDisplayName: mine.value.name,
      // A stable, opaque user handle: registering again on the same authenticator replaces its passkey for this account.
      userID: new Uint8Array(createHash('sha256').update(`${tenant.id}|${username}`).digest()),
      attestationType: 'none',
      excludeCredentials: mine.value.passkeys.map((p) => ({ id: p.credentialId, transports: transports(p.transports) })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.s.federation.put(options.challenge, tenant.id, 'passkey-register', { username }, CHALLENGE_TTL_S);
    return { outcome: 'ok', value: options };
  }

  /** Verifies and stores a registration made by `username`. */
  async register(tenant: AuthTenant, username: string, response: RegistrationResponseJSON, name: string): Promise<Verdict<true>> {
    const challenge = challengeOf(response);
    const saved = challenge ? await this.s.federation.take<{ username: string }>(challenge, tenant.id, 'passkey-register') : undefined;
    if (!challenge || saved?.username !== username) return { outcome: 'denied' };
    const rp = relyingParty(tenant);
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpID,
        requireUserVerification: false,
      });
    } catch (err) {
      this.s.logger.info({ tenant: tenant.id, err: (err as Error).message }, 'passkey registration refused');
      return { outcome: 'denied' };
    }
    if (!verified.verified || !verified.registrationInfo) return { outcome: 'denied' };
    const { credential } = verified.registrationInfo;
    return this.s.users.addPasskey(tenant.id, {
      username,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: transports(credential.transports ?? []),
      name,
    });
  }
}
