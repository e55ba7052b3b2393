import type { GuardedFetch } from '@switchboard/net-guard';
import type { SecretBox } from '@switchboard/secret-box';
import type { Logger } from 'pino';
import type { Database } from '../db/database';
import { AuditExportStore, auditExportSecretAad, type AuditExportRow } from './audit-export-store';
import { auditObjects, limitDays } from './audit-objects';
import { putS3Object, type S3Target } from './put-s3-object';

export interface AuditExporterOptions {
  /** Pause between polls, in ms (also how soon a caught-up tenant is looked at again). */
  intervalMs: number;
  /** Entries per batch (AUDIT_EXPORT_BATCH_SIZE). */
  batchSize: number;
  /** Timeout of one upload, in ms. */
  timeoutMs: number;
  /** Tenants looked at per poll. */
  tenantsPerPoll?: number;
  /** Batches one tenant may export per turn before others get theirs. */
  batchesPerTurn?: number;
  /** First retry delay after a failure, doubled per consecutive failure up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * Streams each tenant's audit log to its S3-compatible bucket (gzipped JSON Lines, one object
 * per UTC day per batch). At least once: the cursor in Postgres moves only after a batch's
 * objects were written, so a crash re-exports that batch (under the same keys). Replicas share
 * the work through per-tenant advisory locks; a failing tenant backs off without delaying the others.
 */
export class AuditExporter {
  private readonly store: AuditExportStore;
  private readonly o: Required<AuditExporterOptions>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    db: Database,
    private readonly box: SecretBox,
    private readonly fetch: GuardedFetch,
    private readonly logger: Logger,
    options: AuditExporterOptions,
  ) {
    this.store = new AuditExportStore(db);
    this.o = { tenantsPerPoll: 10, batchesPerTurn: 5, backoffMs: 5_000, maxBackoffMs: 15 * 60_000, ...options };
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for the export in progress (bounded by the upload timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One poll: exports every due tenant no other exporter holds; returns how many entries were exported. */
  async pollOnce(): Promise<number> {
    let total = 0;
    for (const due of await this.store.due(this.o.tenantsPerPoll)) {
      if (this.stopped) break;
      total += (await this.store.withTenantLock(due.tenant_id, (row) => this.exportTenant(row))) ?? 0;
    }
    return total;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pollOnce()
        .then(
          () => undefined,
          (err: unknown) => this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'audit export poll failed'),
        )
        .finally(() => this.schedule(this.o.intervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async exportTenant(row: AuditExportRow): Promise<number> {
    let exported = 0;
    try {
      const target = this.target(row);
      let cursor = { txid: row.cursor_txid, id: row.cursor_id };
      let more = false;
      for (let b = 0; b < this.o.batchesPerTurn && !this.stopped; b++) {
        const read = await this.store.readBatch(row.tenant_id, cursor.txid, cursor.id, this.o.batchSize);
        const batch = limitDays(read);
        more = batch.length < read.length || read.length === this.o.batchSize;
        if (batch.length === 0) break;
        for (const obj of auditObjects(row.tenant_id, row.prefix, batch)) await putS3Object(this.fetch, target, obj.key, obj.body, this.o.timeoutMs);
        const last = batch[batch.length - 1]!;
        if (!(await this.store.advance(row.tenant_id, last, batch.length))) return exported;
        exported += batch.length;
        cursor = { txid: last.txid, id: last.id };
      }
      // A backlog stays due (its next turn is the next poll); a tenant that caught up waits an interval.
      await this.store.later(row.tenant_id, more ? 0 : this.o.intervalMs);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn({ tenant: row.tenant_id, err: message }, 'audit export failed');
      await this.store.fail(row.tenant_id, message, this.o.backoffMs, this.o.maxBackoffMs).catch(() => undefined);
    }
    return exported;
  }

  private target(row: AuditExportRow): S3Target {
    return {
      endpoint: row.endpoint,
      bucket: row.bucket,
      region: row.region,
      pathStyle: row.path_style,
      accessKeyId: row.access_key_id,
      secretAccessKey: this.box.open(row.secret_sealed, auditExportSecretAad(row.tenant_id)),
    };
  }
}
