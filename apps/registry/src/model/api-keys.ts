import { createHash, randomBytes } from 'node:crypto';

/** A new tenant API key: `sbk_` + 32 random bytes (base64url). Only its sha256 is stored. */
export function newApiKey(): { key: string; hash: Buffer; prefix: string } {
  const key = `sbk_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 10) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}
