import { NetGuardError, type GuardedFetch } from '@switchboard/net-guard';
import { bullPrefix, createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { SecretBox } from '@switchboard/secret-box';
import { withConsumerSpan } from '@switchboard/telemetry';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Database } from '../db/database';
import { WEBHOOK_QUEUE, type DeliverJobData } from './webhook-queue';
import { signingSecrets } from './webhook-secrets';
import { signWebhook } from './webhook-signature';

export interface WebhookWorkerOptions {
  redisUrl: string;
  prefix: string;
  /** Bound of one delivery attempt, connect to response headers (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  concurrency?: number;
}

interface DeliveryRow {
  id: string;
  tenant_id: string;
  subscription_id: string;
  event_type: string;
  payload: unknown;
  status: string;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: Date | null;
}

/** A receiver answered, but not with 2xx: retried with backoff. */
class ReceiverRefusedError extends Error {
  override readonly name = 'ReceiverRefusedError';
  constructor(readonly status: number) {
    super(`receiver answered HTTP ${status}`);
  }
}

/**
 * Sends webhook deliveries: one signed POST per attempt (fresh `webhook-timestamp` and signature,
 * the same `webhook-id`), through the SSRF-guarded fetch with a time bound; redirects are not
 * followed and the receiver's body is never read. Non-2xx answers and network errors are retried
 * with BullMQ's exponential backoff; a URL the guard refuses is not.
 */
export class WebhookWorker {
  private readonly worker: Worker;
  private readonly connection: RedisClient;

  constructor(
    private readonly options: WebhookWorkerOptions,
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly fetch: GuardedFetch,
    private readonly logger: Logger,
  ) {
    this.connection = createRedis(options.redisUrl, { maxRetriesPerRequest: null });
    this.connection.on('error', () => undefined);
    this.worker = new Worker(WEBHOOK_QUEUE, (job: Job<DeliverJobData>) => withConsumerSpan(WEBHOOK_QUEUE, job, () => this.deliver(job)), {
      connection: this.connection,
      prefix: bullPrefix(options.prefix),
      concurrency: options.concurrency ?? 8,
    });
    this.worker.on('error', (err) => this.logger.warn({ err: err.message }, 'webhook worker error'));
  }

  private async deliver(job: Job<DeliverJobData>): Promise<unknown> {
    const { tenantId, deliveryId } = job.data;
    const rows = await this.db.query<DeliveryRow>(
      `SELECT d.id, d.tenant_id, d.subscription_id, d.event_type, d.payload, d.status, s.url, s.enabled, s.secret, s.previous_secret, s.previous_expires_at
         FROM registry.webhook_deliveries d JOIN registry.webhook_subscriptions s ON s.tenant_id = d.tenant_id AND s.id = d.subscription_id
        WHERE d.tenant_id = $1 AND d.id = $2`,
      [tenantId, deliveryId],
    );
    const row = rows[0];
    if (!row || row.status === 'delivered' || row.status === 'failed') return { skipped: row?.status ?? 'deleted' };
    if (!row.enabled && row.event_type !== 'webhook.test') {
      await this.record(row, 'failed', undefined, 'subscription disabled');
      return { skipped: 'disabled' };
    }
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      const status = await this.send(row);
      await this.record(row, 'delivered', status);
      return { status };
    } catch (err) {
      const refused = err instanceof NetGuardError || (err as { cause?: unknown }).cause instanceof NetGuardError;
      const status = err instanceof ReceiverRefusedError ? err.status : undefined;
      await this.record(row, refused || final ? 'failed' : 'queued', status, describe(err));
      if (refused) throw new UnrecoverableError(describe(err));
      throw err;
    }
  }

  /** One attempt; resolves with the 2xx status, throws otherwise. */
  private async send(row: DeliveryRow): Promise<number> {
    const body = JSON.stringify(row.payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signWebhook(signingSecrets(this.box, row), row.id, timestamp, body);
    const res = await this.fetch(row.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(this.options.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Switchboard-Webhooks/1.0',
        'webhook-id': row.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
      body,
    });
    // The answer's body carries nothing we use; not reading it bounds what a receiver can make us buffer.
    await res.body?.cancel().catch(() => undefined);
    if (res.status < 200 || res.status > 299) throw new ReceiverRefusedError(res.status);
    return res.status;
  }

  private async record(
    row: DeliveryRow,
    status: 'delivered' | 'failed' | 'queued',
    httpStatus: number | undefined,
    error?: string,
  ): Promise<void> {
    await this.db.query(
      `UPDATE registry.webhook_deliveries SET status = $3, attempts = attempts + 1, last_status = $4, last_error = $5, updated_at = now(),
              delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
        WHERE tenant_id = $1 AND id = $2`,
      [row.tenant_id, row.id, status, httpStatus ?? null, error ?? null],
    );
  }

  async close(): Promise<void> {
    await this.worker.close().catch(() => undefined);
    this.connection.disconnect();
  }
}

/** A one-line reason for the delivery log (tenant-visible: no stack, bounded). */
function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { message?: string } };
  const msg =
    e.name === 'TimeoutError' || e.name === 'AbortError'
      ? 'timed out'
      : `${e.message ?? String(err)}${e.cause?.message ? `: ${e.cause.message}` : ''}`;
  return msg.length > 300 ? `${msg.slice(0, 297)}...` : msg;
}
