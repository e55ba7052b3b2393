import { createHash } from 'node:crypto';

/** SHA-256 (hex) of a bearer value (API key, token id): what a database stores instead of the value. */
export function hashId(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
