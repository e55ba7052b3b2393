import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM sealing of secrets at rest (upstream credentials, client secrets, signing keys,
 * vaulted tokens). A sealed value is `v1.<base64url(iv | tag | ciphertext)>`; the associated
 * data binds it to its owner (e.g. `server-secret:<tenant>:<server>`), so a blob copied to
 * another tenant or row does not open. The format is shared across services (the registry
 * seals credentials that gateways open), so it never changes without a new version prefix.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Throws when the blob was tampered with, sealed under another key, or for another owner. */
  open(sealed: string, aad: string): string {
    if (!sealed.startsWith(`${VERSION}.`)) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  /** A purpose-bound subkey (cookie keys, CSRF tokens) derived from the master key. */
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(purpose).digest();
  }

  /** Keyed MAC (base64url) of a value under a purpose-bound subkey, for CSRF tokens and link tickets. */
  mac(purpose: string, value: string): string {
    return createHmac('sha256', this.derive(purpose)).update(value).digest('base64url');
  }
}

/** AAD of the credential blob the registry publishes and a gateway opens (Redis / internal API): the contract between the two. */
export const gatewayCredentialAad = (tenantId: string, serverId: string): string => `gateway-credential:${tenantId}:${serverId}`;
