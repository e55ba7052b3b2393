import { guardedFetch, type NetGuardPolicy } from '@switchboard/net-guard';
import type { SecretBox } from '@switchboard/secret-box';
import type { Logger } from 'pino';
import type { RegistryConfig } from '../config';
import type { Database } from '../db/database';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookQueue } from './webhook-queue';
import { WebhookWorker } from './webhook-worker';

/** A Redis flush is noticed this long after a delivery was queued (its job is then enqueued again). */
const LOST_JOB_AFTER_MS = 10 * 60_000;

/**
 * Starts the webhook pipeline — outbox dispatcher, BullMQ queue and delivery worker — where
 * discovery runs (REGISTRY_WORKER); events recorded on a replica without it wait in Postgres for
 * one that has it. Returns what closes it.
 */
export function startWebhooks(
  config: RegistryConfig,
  db: Database,
  box: SecretBox,
  policy: NetGuardPolicy,
  logger: Logger,
): { close(): Promise<void> } {
  if (!config.REGISTRY_WORKER) return { close: async () => undefined };
  const queue = new WebhookQueue({
    redisUrl: config.REDIS_URL,
    prefix: config.REGISTRY_QUEUE_PREFIX,
    attempts: config.WEBHOOK_ATTEMPTS,
    backoffMs: config.WEBHOOK_BACKOFF_MS,
  });
  const dispatcher = new WebhookDispatcher(db, queue, logger, {
    periodMs: config.WEBHOOK_DISPATCH_MS,
    logMax: config.WEBHOOK_LOG_MAX,
    lostAfterMs: LOST_JOB_AFTER_MS,
  });
  const worker = new WebhookWorker(
    { redisUrl: config.REDIS_URL, prefix: config.REGISTRY_QUEUE_PREFIX, timeoutMs: config.WEBHOOK_TIMEOUT_MS },
    db,
    box,
    guardedFetch(policy),
    logger,
  );
  dispatcher.start();
  return {
    close: async () => {
      await dispatcher.stop();
      await worker.close();
      await queue.close();
    },
  };
}
