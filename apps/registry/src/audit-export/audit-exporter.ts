import type { GuardedFetch } from '@switchboard/net-guard';
import type { SecretBox } from '@switchboard/secret-box';
import type { Logger } from 'pino';
import type { Database } from '../db/database';
import { auditExportSecretAad } from '../crypto/secret-aad';
import { AuditExportStore, type AuditExportRow } from './audit-export-store';
import { auditObjects, limitDays } from './audit-objects';
import { putS3Object, type S3Target } from './put-s3-object';

export interface AuditExporterOptions {
  /** Pause of an idle loop before it looks for due tenants again, in ms (also how soon a caught-up tenant is due again). */
  intervalMs: number;
  /** Entries per batch (AUDIT_EXPORT_BATCH_SIZE). */
  batchSize: number;
  /** Timeout of one upload, in ms. */
  timeoutMs: number;
  /** Due tenants looked at per poll (the first one not locked elsewhere is taken). */
  tenantsPerPoll?: number;
  /** Loops, i.e. tenants exported at once (each holds a Postgres connection for its lock). */
  concurrency?: number;
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
  private loops: Array<Promise<void>> = [];
  private stopped = false;
  /** Wakes the loops that are waiting for the next poll (stop). */
  private wake = new Set<() => void>();

  constructor(
    db: Database,
    private readonly box: SecretBox,
    private readonly fetch: GuardedFetch,
    private readonly logger: Logger,
    options: AuditExporterOptions,
  ) {
    this.store = new AuditExportStore(db);
    this.o = { tenantsPerPoll: 10, concurrency: 3, batchesPerTurn: 5, backoffMs: 5_000, maxBackoffMs: 15 * 60_000, ...options };
  }

  /**
   * Starts `concurrency` independent loops, so a sink that hangs until the timeout holds up only
   * its own loop; the advisory lock keeps two loops (or replicas) off the same tenant.
   */
  start(): void {
    this.stopped = false;
    this.loops = Array.from({ length: this.o.concurrency }, () => this.loop());
  }

  /** Stops the loops and waits for the exports in progress (bounded by the upload timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.wake) w();
    await Promise.all(this.loops);
  }

  /** Exports the first due tenant no other exporter holds; undefined when there was none. */
  async exportNext(): Promise<number | undefined> {
    for (const due of await this.store.due(this.o.tenantsPerPoll)) {
      if (this.stopped) return undefined;
      const exported = await this.store.withTenantLock(due.tenant_id, (row) => this.exportTenant(row));
      if (exported !== undefined) return exported;
    }
    return undefined;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const done = await this.exportNext().catch((err: unknown) => {
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'audit export poll failed');
        return undefined;
      });
      if (done === undefined) await this.pause(this.o.intervalMs);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake.add(done);
      if (this.stopped) done();
    });
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
        for (const obj of auditObjects(row.tenant_id, row.prefix, batch))
          await putS3Object(this.fetch, target, obj.key, obj.body, this.o.timeoutMs);
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
      await this.store.fail(row, message, this.o.backoffMs, this.o.maxBackoffMs).catch(() => undefined);
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
