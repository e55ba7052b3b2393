import type { Logger } from 'pino';
import type { Database } from '../db/database';
import type { WebhookQueue } from './webhook-queue';

export interface WebhookDispatcherOptions {
  /** Poll period of the outbox (WEBHOOK_DISPATCH_MS). */
  periodMs: number;
  /** Finished deliveries kept per tenant (WEBHOOK_LOG_MAX). */
  logMax: number;
  /** A `queued` row this old whose job BullMQ no longer knows (Redis lost it) is enqueued again. */
  lostAfterMs: number;
}

/** Rows claimed per tick, so one tenant's burst cannot hold the table lock for long. */
const BATCH = 100;
/** Pruning and lost-job checks run every this many ticks. */
const HOUSEKEEPING_EVERY = 60;

/**
 * Moves recorded events (the outbox rows `emitWebhookEvent` wrote) onto the BullMQ queue. Rows
 * are claimed with SKIP LOCKED, so several registry replicas share the work; a row whose enqueue
 * fails goes back to pending and is retried on the next tick (at least once).
 */
export class WebhookDispatcher {
  private timer?: NodeJS.Timeout;
  private ticks = 0;
  private running?: Promise<void>;
  private failing = false;

  constructor(
    private readonly db: Database,
    private readonly queue: WebhookQueue,
    private readonly logger: Logger,
    private readonly options: WebhookDispatcherOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .then(() => {
          if (this.failing) this.logger.info('webhook dispatch recovered');
          this.failing = false;
        })
        .catch((err: Error) => {
          // Once per outage, not once per tick (Redis or Postgres down would otherwise flood the log).
          if (!this.failing) this.logger.warn({ err: err.message }, 'webhook dispatch failed; retrying every tick');
          this.failing = true;
        })
        .finally(() => (this.running = undefined));
    }, this.options.periodMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass: enqueue pending rows; now and then prune the log and re-enqueue lost jobs. */
  async tick(): Promise<void> {
    const rows = await this.db.query<{ id: string; tenant_id: string }>(
      `UPDATE registry.webhook_deliveries SET status = 'queued', updated_at = now()
        WHERE id IN (SELECT id FROM registry.webhook_deliveries WHERE status = 'pending' ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING id, tenant_id`,
    );
    if (rows.length > 0) {
      try {
        await this.queue.enqueue(rows);
      } catch (err) {
        await this.db.query("UPDATE registry.webhook_deliveries SET status = 'pending' WHERE id = ANY($1) AND status = 'queued'", [
          rows.map((r) => r.id),
        ]);
        throw err;
      }
    }
    if (this.ticks++ % HOUSEKEEPING_EVERY === 0) await this.housekeeping();
  }

  private async housekeeping(): Promise<void> {
    await this.db.query(
      `DELETE FROM registry.webhook_deliveries d USING (
         SELECT id, row_number() OVER (PARTITION BY tenant_id ORDER BY created_at DESC) AS n
           FROM registry.webhook_deliveries WHERE status IN ('delivered', 'failed')) old
        WHERE d.id = old.id AND old.n > $1`,
      [this.options.logMax],
    );
    const stale = await this.db.query<{ id: string; tenant_id: string }>(
      "SELECT id, tenant_id FROM registry.webhook_deliveries WHERE status = 'queued' AND updated_at < now() - make_interval(secs => $1) LIMIT $2",
      [this.options.lostAfterMs / 1000, BATCH],
    );
    const lost = [];
    for (const row of stale) if (!(await this.queue.known(row.id))) lost.push(row);
    if (lost.length > 0) {
      this.logger.warn({ deliveries: lost.length }, 'webhook jobs lost by Redis; enqueued again');
      await this.queue.enqueue(lost);
    }
  }
}
