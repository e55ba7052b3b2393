import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { keyId } from './key-id';

const LEGACY = 'v1';
const VERSION = 'v2';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM sealing of secrets at rest (upstream credentials, client secrets, signing keys,
 * vaulted tokens). A sealed value is `v2.<kid>.<base64url(iv | tag | ciphertext)>`, `kid` naming
 * the key (keyId) that sealed it; the associated data binds it to its owner (e.g.
 * `server-secret:<tenant>:<server>`), so a blob copied to another tenant or row does not open.
 *
 * Several keys may be configured, newest first: the first seals, every one opens what it
 * sealed, so keys rotate by prepending a new one, re-sealing (needsReseal / reseal) and
 * later dropping the old one. Blobs from before key ids (`v1.<…>`) still open: each configured
 * key is tried. The format is shared across services (the registry seals credentials that
 * gateways open), so it never changes without a new version prefix.
 */
export class SecretBox {
  private readonly keys: Array<{ id: string; key: Buffer }>;

  constructor(keys: Buffer | Buffer[]) {
    const list = Array.isArray(keys) ? keys : [keys];
    if (list.length === 0) throw new Error('SecretBox needs at least one key');
    for (const k of list) if (k.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.keys = list.map((key) => ({ id: keyId(key), key }));
  }

  /** The id of the key new blobs are sealed with. */
  get primaryKeyId(): string {
    return this.keys[0]!.id;
  }

  seal(plaintext: string, aad: string): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${id}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Throws when the blob was tampered with, sealed under a key not configured here, or for another owner. */
  open(sealed: string, aad: string): string {
    if (sealed.startsWith(`${VERSION}.`)) {
      const dot = sealed.indexOf('.', VERSION.length + 1);
      const kid = dot > 0 ? sealed.slice(VERSION.length + 1, dot) : '';
      const entry = this.keys.find((k) => k.id === kid);
      if (!entry) throw new Error(`sealed with key ${kid || '(none)'}, which is not configured (SECRETS_KEY)`);
      return decrypt(entry.key, body(sealed.slice(dot + 1)), aad);
    }
    if (sealed.startsWith(`${LEGACY}.`)) {
      // Before key ids: whichever configured key opens it (GCM authenticates, so a wrong key fails cleanly).
      const raw = body(sealed.slice(LEGACY.length + 1));
      let last: unknown;
      for (const { key } of this.keys) {
        try {
          return decrypt(key, raw, aad);
        } catch (err) {
          last = err;
        }
      }
      throw last instanceof Error ? last : new Error('sealed secret does not open');
    }
    throw new Error('unknown sealed-secret format');
  }

  /** True when the blob is not sealed with the newest key (a legacy blob or an older key's). */
  needsReseal(sealed: string): boolean {
    return !sealed.startsWith(`${VERSION}.${this.primaryKeyId}.`);
  }

  /** Opens and seals again under the newest key (same owner). */
  reseal(sealed: string, aad: string): string {
    return this.seal(this.open(sealed, aad), aad);
  }

  /** A purpose-bound subkey (cookie keys, CSRF tokens) derived from the newest key (rotation renews them). */
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.keys[0]!.key).update(purpose).digest();
  }

  /** Keyed MAC (base64url) of a value under a purpose-bound subkey, for CSRF tokens and link tickets. */
  mac(purpose: string, value: string): string {
    return createHmac('sha256', this.derive(purpose)).update(value).digest('base64url');
  }
}

function body(encoded: string): Buffer {
  const raw = Buffer.from(encoded, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret too short');
  return raw;
}

function decrypt(key: Buffer, raw: Buffer, aad: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** AAD of the credential blob the registry publishes and a gateway opens (Redis / internal API): the contract between the two. */
export const gatewayCredentialAad = (tenantId: string, serverId: string): string => `gateway-credential:${tenantId}:${serverId}`;
