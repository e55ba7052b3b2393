import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of Standard Webhooks secrets: `whsec_` + base64 of the key bytes. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret in the Standard Webhooks form (24 random bytes, as the reference libraries make them). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The HMAC key of a `whsec_…` secret. */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * The `webhook-signature` header of one attempt: `v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`
 * per secret, space-separated. During a rotation both the new and the previous secret sign, so a
 * receiver still holding the old one keeps verifying until the window ends.
 */
export function signWebhook(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', secretKey(s)).update(content).digest('base64')}`).join(' ');
}
