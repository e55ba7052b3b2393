import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span } from '@opentelemetry/api';
import { extractTraceContext } from './extract-trace-context';
import { switchboardMetrics } from './switchboard-metrics';

/** The part of a BullMQ `Job` the consumer span reads. */
export interface TracedJob {
  name: string;
  id?: string;
  /** Enqueue time in ms since the epoch (BullMQ sets it). */
  timestamp?: number;
  attemptsMade?: number;
  /** The job's scheduled delay in ms (BullMQ `job.delay`: delayed and repeatable jobs). */
  delay?: number;
  /** When the current attempt started processing, ms since the epoch (BullMQ `job.processedOn`). */
  processedOn?: number;
  /** BullMQ `job.opts`: a `repeat` / `repeatJobKey` marks a repeatable job. */
  opts?: { delay?: number; repeat?: unknown };
  repeatJobKey?: string;
  data: unknown;
}

/**
 * Processes a job inside a CONSUMER span (`process <queue>`) whose parent is the producer's
 * context carried in `job.data._trace` (or a `job.data.traceparent` string), and records `queue_jobs_total`,
 * `queue_job_duration_seconds` and `queue_job_wait_seconds`. Errors mark the span and are rethrown
 * (BullMQ retries them).
 */
export async function withConsumerSpan<R>(
  queue: string,
  job: TracedJob,
  fn: (span: Span) => Promise<R>,
  attributes: Attributes = {},
): Promise<R> {
  // `_trace` (withProducerSpan) or a bare `traceparent` field (jobs that carry only that header).
  const data = job.data as { _trace?: unknown; traceparent?: unknown } | null;
  const carrier =
    data?._trace && typeof data._trace === 'object'
      ? (data._trace as Record<string, unknown>)
      : typeof data?.traceparent === 'string'
        ? { traceparent: data.traceparent }
        : undefined;
  const parent = extractTraceContext(carrier);
  const span = trace.getTracer('switchboard').startSpan(
    `process ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.destination.name': queue,
        'messaging.operation.type': 'process',
        'messaging.message.id': job.id ?? '',
        'switchboard.job.name': job.name,
        'switchboard.job.attempt': (job.attemptsMade ?? 0) + 1,
        ...attributes,
      },
    },
    parent,
  );
  const m = switchboardMetrics().queue;
  const started = performance.now();
  // Wait = time the job was ready but not running: from enqueue plus its scheduled delay (a
  // repeatable or delayed job is not "waiting" before its due time), to the start of processing.
  // Only the first attempt: a retry's backoff is not queue wait either.
  if (job.timestamp && (job.attemptsMade ?? 0) === 0) {
    const due = job.timestamp + (job.delay ?? job.opts?.delay ?? 0);
    const startedAt = job.processedOn ?? Date.now();
    m.jobWait.record(Math.max(0, startedAt - due) / 1000, { queue, job: job.name });
  }
  let outcome = 'ok';
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    outcome = 'error';
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 200) : undefined });
    throw err;
  } finally {
    span.end();
    m.jobs.add(1, { queue, job: job.name, outcome });
    m.jobDuration.record((performance.now() - started) / 1000, { queue, job: job.name, outcome });
  }
}
