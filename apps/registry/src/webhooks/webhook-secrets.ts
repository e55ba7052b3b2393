import type { SecretBox } from '@switchboard/secret-box';
import { webhookSecretAad } from '../crypto/secret-aad';

/** The secrets that sign a delivery now: the current one, and the previous one until its rotation window ends. */
export function signingSecrets(
  box: SecretBox,
  row: { tenant_id: string; subscription_id: string; secret: string; previous_secret: string | null; previous_expires_at: Date | null },
  now = new Date(),
): string[] {
  const aad = webhookSecretAad(row.tenant_id, row.subscription_id);
  const secrets = [box.open(row.secret, aad)];
  if (row.previous_secret && row.previous_expires_at && row.previous_expires_at > now) secrets.push(box.open(row.previous_secret, aad));
  return secrets;
}
