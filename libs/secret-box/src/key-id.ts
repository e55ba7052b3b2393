import { createHash } from 'node:crypto';

/** The id of a key: 8 base64url characters of its SHA-256, so ids need no configuration and never reveal the key. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('switchboard-secret-box-kid:').update(key).digest('base64url').slice(0, 8);
}
