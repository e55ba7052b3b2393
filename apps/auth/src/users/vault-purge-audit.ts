import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { callDirectory } from './directory-client';
import type { UserDirectory } from './user-directory';

/** Purge records reported per boot (one per tenant; more wait for the next boot). */
const BATCH = 1000;

interface PurgeRow {
  id: string;
  tenant_id: string;
  rows_purged: number;
  connectors: string[];
  purged_at: Date;
}

/**
 * Reports the vault rows the `vault-legacy-subjects` migration purged (old, un-namespaced
 * subjects) to the registry's audit log, one entry per tenant, and marks each reported. Every
 * record is also logged here. Without a registry (REGISTRY_INTERNAL_URL) or while it is down,
 * records stay unreported and the next boot tries again; a tenant the registry does not know
 * (a file-served development tenant) has no audit log there and is marked reported.
 */
export async function reportVaultPurges(pool: Pool, schema: string, users: UserDirectory, logger: Logger): Promise<number> {
  const { rows } = await pool.query<PurgeRow>(
    `SELECT id, tenant_id, rows_purged, connectors, purged_at FROM "${schema}".vault_legacy_purge WHERE audited_at IS NULL ORDER BY id LIMIT ${BATCH}`,
  );
  let reported = 0;
  for (const r of rows) {
    logger.warn(
      { event: 'vault.purge-legacy-subjects', tenant: r.tenant_id, rows: r.rows_purged, connectors: r.connectors },
      'vault rows of un-namespaced subjects were purged; those users link their accounts again',
    );
    if (!users.target) continue;
    const answer = await callDirectory(users.target, 'audit-vault-purge', {
      tenant: r.tenant_id,
      rows: r.rows_purged,
      connectors: r.connectors.slice(0, 64),
      purgedAt: r.purged_at.toISOString(),
    });
    if (answer.outcome === 'unavailable') {
      logger.warn({ tenant: r.tenant_id, reason: answer.reason }, 'vault purge not yet audited at the registry; retried at the next boot');
      continue;
    }
    await pool.query(`UPDATE "${schema}".vault_legacy_purge SET audited_at = now() WHERE id = $1`, [r.id]);
    reported += 1;
  }
  return reported;
}
