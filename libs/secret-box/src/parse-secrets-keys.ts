/**
 * SECRETS_KEY as configured: one key or several, comma-separated, newest first (the first seals,
 * all open). Each is 32 bytes, base64 (`openssl rand -base64 32`) or 64 hex digits. Throws with
 * the position of the first bad one.
 */
export function parseSecretsKeys(value: string): Buffer[] {
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('must name at least one key');
  return parts.map((p, i) => {
    const key = /^[0-9a-f]{64}$/i.test(p) ? Buffer.from(p, 'hex') : Buffer.from(p, 'base64');
    if (key.length !== 32)
      throw new Error(`key ${i + 1} of ${parts.length} must be 32 bytes, base64-encoded (openssl rand -base64 32) or 64 hex digits`);
    return key;
  });
}

/** What a config schema tells the operator when SECRETS_KEY does not parse. */
export const SECRETS_KEYS_FORMAT =
  'must be one or more 32-byte keys, comma-separated, newest first (base64: openssl rand -base64 32, or 64 hex digits)';

/** Whether `parseSecretsKeys` accepts the value: the refinement of every app's SECRETS_KEY field. */
export function isSecretsKeys(value: string): boolean {
  try {
    parseSecretsKeys(value);
    return true;
  } catch {
    return false;
  }
}
