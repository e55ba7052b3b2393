import type { Queryable } from '../db/database';
import type { DiscoveredItem } from './discover-server';

/** How many items of each kind one discovery found. */
export interface DiscoveryCounts {
  tools: number;
  prompts: number;
  resources: number;
  resourceTemplates: number;
}

/** Counts a discovery's items by kind. */
export function countItems(items: DiscoveredItem[]): DiscoveryCounts {
  const counts: DiscoveryCounts = { tools: 0, prompts: 0, resources: 0, resourceTemplates: 0 };
  for (const i of items) {
    if (i.kind === 'tool') counts.tools++;
    else if (i.kind === 'prompt') counts.prompts++;
    else if (i.kind === 'resource') counts.resources++;
    else counts.resourceTemplates++;
  }
  return counts;
}

/*
 * The discovery progress columns of registry.servers, written at the three moments that matter
 * (enqueued, attempt started, attempt ended) so the server view reads them without asking Redis.
 * Ends are guarded by the job id: a job that finishes after a newer one was enqueued leaves the
 * newer job's state alone.
 */

/** A discovery job was enqueued (no-op when the worker already picked this very job up: the race goes to the worker). */
export async function markQueued(q: Queryable, tenantId: string, serverId: string, jobId: string): Promise<void> {
  await q.query(
    `UPDATE registry.servers SET discovery_state = 'queued', discovery_job_id = $3, discovery_attempt = NULL, discovery_started_at = NULL, discovery_finished_at = NULL, discovery_error = NULL
      WHERE tenant_id = $1 AND id = $2 AND discovery_job_id IS DISTINCT FROM $3`,
    [tenantId, serverId, jobId],
  );
}

/** The worker started attempt `attempt` (1-based) of a job. */
export async function markRunning(q: Queryable, tenantId: string, serverId: string, jobId: string, attempt: number): Promise<void> {
  await q.query(
    `UPDATE registry.servers SET discovery_state = 'running', discovery_job_id = $3, discovery_attempt = $4, discovery_started_at = now(), discovery_finished_at = NULL
      WHERE tenant_id = $1 AND id = $2`,
    [tenantId, serverId, jobId, attempt],
  );
}

/** The job succeeded with these counts. */
export async function markDone(q: Queryable, tenantId: string, serverId: string, jobId: string, counts: DiscoveryCounts): Promise<void> {
  await q.query(
    `UPDATE registry.servers SET discovery_state = 'ok', discovery_finished_at = now(), discovery_error = NULL, discovery_counts = $4
      WHERE tenant_id = $1 AND id = $2 AND discovery_job_id IS NOT DISTINCT FROM $3`,
    [tenantId, serverId, jobId, JSON.stringify(counts)],
  );
}

/** An attempt failed: `error` when it was the last one, else `queued` again (BullMQ retries after its backoff) with the reason. */
export async function markFailed(
  q: Queryable,
  tenantId: string,
  serverId: string,
  jobId: string | undefined,
  message: string,
  final: boolean,
): Promise<void> {
  await q.query(
    `UPDATE registry.servers SET discovery_state = $4, discovery_error = $5, discovery_finished_at = CASE WHEN $4 = 'error' THEN now() ELSE NULL END,
            discovery_job_id = coalesce($3, discovery_job_id)
      WHERE tenant_id = $1 AND id = $2 AND ($3::text IS NULL OR discovery_job_id IS NOT DISTINCT FROM $3)`,
    [tenantId, serverId, jobId ?? null, final ? 'error' : 'queued', message],
  );
}

/**
 * A discovery asked for while the job queue (Redis) is down: recorded on the server row and shown
 * as `queued` without a job id; the reconciliation enqueues it when Redis is back.
 */
export async function recordPendingDiscovery(q: Queryable, tenantId: string, serverId: string, reason: string): Promise<void> {
  await q.query(
    `UPDATE registry.servers SET discovery_pending = $3, discovery_state = 'queued', discovery_job_id = NULL, discovery_attempt = NULL,
            discovery_started_at = NULL, discovery_finished_at = NULL, discovery_error = 'waiting for the job queue (Redis unavailable)'
      WHERE tenant_id = $1 AND id = $2`,
    [tenantId, serverId, reason],
  );
}
