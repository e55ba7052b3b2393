import { Queue } from 'bullmq';
import { bullPrefix, createRedis, type RedisClient } from '@switchboard/redis-connection';
import { observeQueueDepth } from '@switchboard/telemetry';
import { newTraceparent } from '../http/traceparent';

export const WEBHOOK_QUEUE = 'registry-webhooks';

/** Data of a `deliver` job: the tenant is explicit; the job id is the delivery id (`webhook-id`). */
export interface DeliverJobData {
  tenantId: string;
  deliveryId: string;
  traceparent: string;
}

export interface WebhookQueueOptions {
  redisUrl: string;
  prefix: string;
  /** Attempts per delivery (WEBHOOK_ATTEMPTS). */
  attempts: number;
  /** First retry delay; doubles each attempt (WEBHOOK_BACKOFF_MS). */
  backoffMs: number;
}

/** Producer side of webhook deliveries: one job per delivery row, retried with exponential backoff. */
export class WebhookQueue {
  readonly queue: Queue;
  private readonly connection: RedisClient;
  private readonly stopDepth: () => void;

  constructor(private readonly options: WebhookQueueOptions) {
    this.connection = createRedis(options.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: true });
    this.connection.on('error', () => undefined);
    this.queue = new Queue(WEBHOOK_QUEUE, { connection: this.connection, prefix: bullPrefix(options.prefix) });
    this.queue.on('error', () => undefined);
    this.stopDepth = observeQueueDepth(this.queue);
  }

  /**
   * Enqueues deliveries. The job id is the delivery id, so enqueuing one twice (a dispatcher
   * that re-sends after losing track of it) is a no-op while the first job is known to BullMQ.
   */
  async enqueue(rows: ReadonlyArray<{ id: string; tenant_id: string }>): Promise<void> {
    await this.queue.addBulk(
      rows.map((r) => ({
        name: 'deliver',
        data: { tenantId: r.tenant_id, deliveryId: r.id, traceparent: newTraceparent() } satisfies DeliverJobData,
        opts: {
          jobId: r.id,
          attempts: this.options.attempts,
          backoff: { type: 'exponential', delay: this.options.backoffMs },
          removeOnComplete: 1000,
          removeOnFail: 1000,
        },
      })),
    );
  }

  /** True when BullMQ still knows the job of this delivery (waiting, delayed, active or kept). */
  async known(deliveryId: string): Promise<boolean> {
    return (await this.queue.getJob(deliveryId)) !== undefined;
  }

  async close(): Promise<void> {
    this.stopDepth();
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}
