import type { SecretBox } from '@switchboard/secret-box';
import { auditExportSecretAad, serverSecretAad, webhookSecretAad } from '../crypto/secret-aad';
import type { Queryable } from '../db/database';

export interface ResealReport {
  /** Blobs re-sealed under the newest key. */
  resealed: number;
  /** Blobs already under the newest key. */
  current: number;
  /** Blobs that changed under us (a token refresh) and were left to their writer, already current. */
  skipped: number;
}

/**
 * Re-seals every secret the registry keeps at rest (server credentials, cached OAuth tokens, audit export keys)
 * under SECRETS_KEY's newest key, so an older key can be dropped afterwards. Idempotent; each
 * row is updated only if it still holds the blob that was read (a concurrent token refresh
 * wins and already seals with the newest key). Snapshots in Redis carry credentials sealed at
 * publish time: the registry re-seals them when it pushes them again (at every start).
 */
export async function resealSecrets(db: Queryable, box: SecretBox): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, skipped: 0 };
  const rows = await db.query<{ tenant_id: string; id: string; secret: string | null; token_secret: string | null }>(
    'SELECT tenant_id, id, secret, token_secret FROM registry.servers WHERE secret IS NOT NULL OR token_secret IS NOT NULL ORDER BY tenant_id, id',
  );
  for (const row of rows) {
    const aad = serverSecretAad(row.tenant_id, row.id);
    for (const [column, blob, blobAad] of [
      ['secret', row.secret, aad],
      ['token_secret', row.token_secret, `${aad}:token`],
    ] as const) {
      if (!blob) continue;
      if (!box.needsReseal(blob)) {
        report.current++;
        continue;
      }
      const updated = await db.query(
        `UPDATE registry.servers SET ${column} = $4 WHERE tenant_id = $1 AND id = $2 AND ${column} = $3 RETURNING id`,
        [row.tenant_id, row.id, blob, box.reseal(blob, blobAad)],
      );
      if (updated.length === 1) report.resealed++;
      else report.skipped++;
    }
  }
  await resealAuditExportSecrets(db, box, report);
  await resealWebhookSecrets(db, box, report);
  return report;
}

/** The audit exports' secret access keys (one per tenant). */
async function resealAuditExportSecrets(db: Queryable, box: SecretBox, report: ResealReport): Promise<void> {
  const rows = await db.query<{ tenant_id: string; secret_sealed: string }>(
    'SELECT tenant_id, secret_sealed FROM registry.audit_exports ORDER BY tenant_id',
  );
  for (const row of rows) {
    if (!box.needsReseal(row.secret_sealed)) {
      report.current++;
      continue;
    }
    const resealed = box.reseal(row.secret_sealed, auditExportSecretAad(row.tenant_id));
    const updated = await db.query(
      'UPDATE registry.audit_exports SET secret_sealed = $3 WHERE tenant_id = $1 AND secret_sealed = $2 RETURNING tenant_id',
      [row.tenant_id, row.secret_sealed, resealed],
    );
    if (updated.length === 1) report.resealed++;
    else report.skipped++;
  }
}

/** The webhook subscriptions' signing secrets (current and, during a rotation, previous). */
async function resealWebhookSecrets(db: Queryable, box: SecretBox, report: ResealReport): Promise<void> {
  const rows = await db.query<{ tenant_id: string; id: string; secret: string; previous_secret: string | null }>(
    'SELECT tenant_id, id, secret, previous_secret FROM registry.webhook_subscriptions ORDER BY tenant_id, id',
  );
  for (const row of rows) {
    for (const [column, blob] of [
      ['secret', row.secret],
      ['previous_secret', row.previous_secret],
    ] as const) {
      if (!blob) continue;
      if (!box.needsReseal(blob)) {
        report.current++;
        continue;
      }
      const sealed = box.reseal(blob, webhookSecretAad(row.tenant_id, row.id));
      const updated = await db.query(
        `UPDATE registry.webhook_subscriptions SET ${column} = $4 WHERE tenant_id = $1 AND id = $2 AND ${column} = $3 RETURNING id`,
        [row.tenant_id, row.id, blob, sealed],
      );
      if (updated.length === 1) report.resealed++;
      else report.skipped++;
    }
  }
}
