import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM envelope for secrets at rest (signing keys, client secrets, vaulted tokens).
 * Format: `v1.<iv>.<tag>.<ciphertext>` (base64url). The associated data binds a ciphertext
 * to its row (e.g. tenant + kid), so a value copied to another row does not decrypt.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  open(sealed: string, aad: string): string {
    const [v, iv, tag, ct] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** A purpose-bound subkey (cookie keys, CSRF tokens) derived from the master key. */
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(purpose).digest();
  }

  /** Keyed MAC of a value (hex), for CSRF tokens and link tickets. */
  mac(purpose: string, value: string): string {
    return createHmac('sha256', this.derive(purpose)).update(value).digest('base64url');
  }
}

/** SHA-256 (hex) of a bearer value: what the database stores instead of the value itself. */
export function hashId(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
