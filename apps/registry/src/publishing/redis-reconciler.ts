import { metrics, type Counter } from '@opentelemetry/api';
import { catalogRedisKeys } from '@switchboard/catalog';
import type { RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { Database } from '../db/database';
import type { DiscoveryQueue } from '../discovery/discovery-queue';
import { markQueued } from '../discovery/discovery-state';
import type { DiscoverJobData } from '../discovery/discovery-queue';
import type { Publisher } from './publisher';
import { CatalogVerifier } from './catalog-verifier';
import { resyncAll } from './redis-resync';

/** Why a reconciliation ran: process start, a Redis (re)connect, or the periodic verification. */
export type ReconcileReason = 'boot' | 'reconnect' | 'periodic';

/** What reconciliations repaired so far (also counted as `registry_reconcile_repairs_total{kind}`). */
export interface ReconcileStats {
  runs: number;
  lastRun?: { reason: ReconcileReason; at: string; ms: number; repaired: Record<RepairKind, number> };
  repaired: Record<RepairKind, number>;
}

/**
 * - `missing`: a published tenant's key was absent from Redis (flushed, evicted) and was rewritten;
 * - `stale`: the key held another version than Postgres and was rewritten;
 * - `orphan`: Redis listed a tenant Postgres does not publish (removed);
 * - `pushed`: documents re-pushed after a (re)connect because Redis held another version (or none);
 * - `outbox`: half-finished publications completed;
 * - `schedulers`: a BullMQ job scheduler was missing and was declared again;
 * - `discoveries`: discoveries recorded while the queue was down, now enqueued.
 */
export type RepairKind = 'missing' | 'stale' | 'orphan' | 'pushed' | 'outbox' | 'schedulers' | 'discoveries';

const KINDS: RepairKind[] = ['missing', 'stale', 'orphan', 'pushed', 'outbox', 'schedulers', 'discoveries'];

export interface RedisReconcilerOptions {
  namespace: string;
  /** Period of the verification; 0 turns it off (reconnects still re-push). */
  verifyMs: number;
  /** Tenants a verification tick checks: up to this many changed ones plus this many of the rolling window. */
  verifyBatch: number;
  /** Outbox rows younger than this are left to the request that wrote them (it is about to publish). */
  outboxMinAgeMs: number;
}

/**
 * Keeps Redis (the gateways' copy) and the job schedulers in line with Postgres (the source of
 * truth): on boot and on every Redis (re)connect it finishes pending publications, compares
 * every tenant's Redis document with Postgres and re-pushes those that differ (resyncAll), re-declares the schedulers and enqueues discoveries recorded while
 * the queue was down; periodically it verifies Redis incrementally (CatalogVerifier: recently
 * changed tenants first, then a rolling window, bounded work per period) and rewrites what is
 * missing or stale. Runs never overlap; a run requested while one is going runs once more after it.
 */
export class RedisReconciler {
  readonly stats: ReconcileStats = { runs: 0, repaired: zero() };
  private readonly keys: ReturnType<typeof catalogRedisKeys>;
  private readonly counter: Counter;
  readonly verifier: CatalogVerifier;
  private running: Promise<void> | undefined;
  private again: ReconcileReason | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private bootDone = false;

  constructor(
    private readonly db: Database,
    private readonly redis: RedisClient,
    private readonly publisher: Publisher,
    private readonly queue: DiscoveryQueue,
    private readonly logger: Logger,
    private readonly options: RedisReconcilerOptions,
  ) {
    this.keys = catalogRedisKeys(options.namespace);
    this.verifier = new CatalogVerifier(db, redis, publisher, logger, { namespace: options.namespace, batch: options.verifyBatch });
    this.counter = metrics.getMeter('switchboard').createCounter('registry.reconcile.repairs', {
      description: 'Redis keys, schedulers, discoveries and publications repaired by reconciliation, by kind',
    });
  }

  /** Runs the boot reconciliation, then follows Redis reconnects and starts the periodic verification. */
  async start(): Promise<void> {
    // Registered before the boot run: a reconnect during it queues one more run instead of being lost.
    this.redis.on('ready', () => {
      if (this.bootDone) void this.run('reconnect');
    });
    this.queue.onReady(() => {
      if (this.bootDone) void this.run('reconnect');
    });
    await this.run('boot');
    this.bootDone = true;
    if (this.options.verifyMs > 0) {
      this.timer = setInterval(() => void this.run('periodic'), this.options.verifyMs);
      this.timer.unref();
    }
  }

  /** One reconciliation (serialised); resolves when it and any run queued meanwhile are done. */
  run(reason: ReconcileReason): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      // Keep the strongest pending reason: a reconnect checks every tenant, a periodic run only a bounded slice.
      if (this.again !== 'reconnect' && this.again !== 'boot') this.again = reason;
      return this.running;
    }
    this.running = (async () => {
      let next: ReconcileReason | undefined = reason;
      while (next && !this.closed) {
        this.again = undefined;
        await this.once(next);
        next = this.again;
      }
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }

  private async once(reason: ReconcileReason): Promise<void> {
    const started = Date.now();
    const repaired = zero();
    let current: number | undefined;
    const step = async (name: string, fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (err) {
        this.logger.warn({ reason, step: name, err: (err as Error).message }, 'reconciliation step failed; retried on the next run');
      }
    };
    await step('outbox', async () => {
      repaired.outbox += (await this.publisher.finishPending(reason === 'boot' ? 0 : this.options.outboxMinAgeMs)).length;
    });
    const redisUp = this.redis.status === 'ready';
    if (redisUp) {
      await step('catalogs', async () => {
        if (reason === 'periodic') {
          const r = await this.verifier.tick();
          for (const k of ['missing', 'stale', 'orphan'] as const) repaired[k] += r[k];
        } else {
          const from = await this.verifier.feedPositionNow();
          const r = await resyncAll(this.db, this.redis, this.publisher, this.options.namespace);
          repaired.pushed += r.pushed;
          current = r.current;
          await this.dropOrphans(await this.publisher.currentVersions(), repaired);
          // Everything changed before the re-push started is in Redis now; the feed covers what follows.
          this.verifier.followFrom(from);
        }
      });
      await step('schedulers', async () => {
        repaired.schedulers += await this.queue.schedule();
      });
      await step('discoveries', async () => {
        repaired.discoveries += await this.enqueuePending();
      });
    }
    this.stats.runs++;
    for (const k of KINDS) {
      this.stats.repaired[k] += repaired[k];
      if (repaired[k] > 0) this.counter.add(repaired[k], { kind: k, reason });
    }
    const ms = Date.now() - started;
    this.stats.lastRun = { reason, at: new Date().toISOString(), ms, repaired };
    const total = KINDS.reduce((n, k) => n + (k === 'pushed' ? 0 : repaired[k]), 0);
    const line = { reason, redis: redisUp ? 'ready' : this.redis.status, ms, ...repaired, ...(current === undefined ? {} : { current }) };
    if (total > 0) this.logger.warn(line, 'reconciliation repaired Redis / queue state');
    else if (reason !== 'periodic') this.logger.info(line, 'reconciliation done');
  }

  /** Tenants Redis lists but Postgres does not publish (deleted while Redis was away). */
  private async dropOrphans(versions: Map<string, string>, repaired: Record<RepairKind, number>): Promise<void> {
    const members = new Set(await this.redis.smembers(this.keys.tenants));
    for (const id of members) {
      if (versions.has(id)) continue;
      if ((await this.publisher.push(id).catch(() => 'unavailable' as const)) === 'ok') repaired.orphan++;
    }
  }

  /** Discoveries recorded in Postgres while the queue was down, enqueued now (oldest first). */
  private async enqueuePending(): Promise<number> {
    const rows = await this.db.query<{ tenant_id: string; id: string; discovery_pending: DiscoverJobData['reason'] }>(
      'SELECT tenant_id, id, discovery_pending FROM registry.servers WHERE discovery_pending IS NOT NULL ORDER BY updated_at LIMIT 1000',
    );
    let n = 0;
    for (const r of rows) {
      const jobId = await this.queue.enqueue(r.tenant_id, r.id, r.discovery_pending);
      await markQueued(this.db, r.tenant_id, r.id, jobId);
      await this.db.query('UPDATE registry.servers SET discovery_pending = NULL WHERE tenant_id = $1 AND id = $2', [r.tenant_id, r.id]);
      this.logger.info(
        { tenant: r.tenant_id, server: r.id, jobId, reason: r.discovery_pending },
        'discovery recorded while the queue was down is now enqueued',
      );
      n++;
    }
    return n;
  }
}

function zero(): Record<RepairKind, number> {
  return { missing: 0, stale: 0, orphan: 0, pushed: 0, outbox: 0, schedulers: 0, discoveries: 0 };
}
