import { Queue } from 'bullmq';
import { bullPrefix, createRedis, type RedisClient } from '@switchboard/redis-connection';
import { observeQueueDepth, withProducerSpan } from '@switchboard/telemetry';
import { newTraceparent } from '../http/traceparent';

export const DISCOVERY_QUEUE = 'registry-discovery';

/** Data of a `discover` job: the tenant is explicit, and the W3C trace context travels with it. */
export interface DiscoverJobData {
  tenantId: string;
  serverId: string;
  reason: 'register' | 'update' | 'manual' | 'refresh' | 'seed';
  traceparent: string;
}

export interface DiscoveryQueueOptions {
  redisUrl: string;
  prefix: string;
  attempts: number;
  refreshMs: number;
}

/** Producer side of discovery: one-off `discover` jobs and the repeatable refresh / maintenance jobs. */
export class DiscoveryQueue {
  readonly queue: Queue;
  private readonly connection: RedisClient;

  constructor(private readonly options: DiscoveryQueueOptions) {
    this.connection = createRedis(options.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: true });
    this.connection.on('error', () => undefined);
    this.queue = new Queue(DISCOVERY_QUEUE, { connection: this.connection, prefix: bullPrefix(options.prefix) });
    this.queue.on('error', () => undefined);
    this.stopDepth = observeQueueDepth(this.queue);
  }

  private readonly stopDepth: () => void;

  /** Enqueues a discovery of one server; retried with exponential backoff. */
  async enqueue(tenantId: string, serverId: string, reason: DiscoverJobData['reason'], traceparent?: string): Promise<string> {
    const add = async (tp: string) => {
      const data: DiscoverJobData = { tenantId, serverId, reason, traceparent: tp };
      const job = await this.queue.add('discover', data, {
        attempts: this.options.attempts,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: 1000,
        removeOnFail: 1000,
      });
      return job.id ?? '';
    };
    if (traceparent) return add(traceparent);
    // A PRODUCER span under the request that caused the discovery; its context is the job's
    // traceparent, so the worker's CONSUMER span continues the same trace (a fresh one when tracing is off).
    return withProducerSpan(DISCOVERY_QUEUE, 'discover', {}, (traced) => add(traced._trace?.traceparent ?? newTraceparent()), {
      'switchboard.tenant.id': tenantId,
    });
  }

  /**
   * Declares the repeatable jobs (idempotent across replicas and reconnects: schedulers are
   * upserted by id). Called at boot and on every Redis (re)connect, since a Redis that lost its
   * data has lost them too. Returns how many were missing before this call.
   */
  async schedule(): Promise<number> {
    const wanted: Array<{ id: string; every: number }> = [];
    if (this.options.refreshMs > 0) wanted.push({ id: 'refresh-all', every: this.options.refreshMs });
    wanted.push({ id: 'maintenance', every: 60_000 });
    let missing = 0;
    for (const { id, every } of wanted) {
      if (!(await this.queue.getJobScheduler(id))) missing++;
      await this.queue.upsertJobScheduler(id, { every }, { name: id, data: { traceparent: newTraceparent() } });
    }
    return missing;
  }

  /** Ids of the declared job schedulers (readiness and tests). */
  async schedulers(): Promise<string[]> {
    return (await this.queue.getJobSchedulers(0, 100)).map((s) => s.key);
  }

  /** Calls `fn` whenever the queue's Redis connection becomes ready again. */
  onReady(fn: () => void): void {
    this.connection.on('ready', fn);
  }

  async close(): Promise<void> {
    this.stopDepth();
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}
