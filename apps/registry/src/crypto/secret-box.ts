import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM sealing of secrets. A sealed value is `v1.<base64url(iv | tag | ciphertext)>`;
 * the associated data binds it to its owner (e.g. `server-secret:<tenant>:<server>`), so a
 * blob copied to another tenant or server does not open.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Throws when the blob was tampered with, sealed under another key, or for another owner. */
  open(sealed: string, aad: string): string {
    if (!sealed.startsWith(`${VERSION}.`)) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < 28) throw new Error('sealed secret too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** AAD of a server's stored secret. */
export const serverSecretAad = (tenantId: string, serverId: string) => `server-secret:${tenantId}:${serverId}`;
/** AAD of the credential blob a gateway opens (Redis / internal API). */
export const gatewayCredentialAad = (tenantId: string, serverId: string) => `gateway-credential:${tenantId}:${serverId}`;
