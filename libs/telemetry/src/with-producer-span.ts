import { SpanKind, context, trace, type Attributes } from '@opentelemetry/api';
import { injectTraceContext } from './inject-trace-context';

/** Job data carrying the W3C context of the span that enqueued it. */
export type TracedJobData<T> = T & { _trace?: Record<string, string> };

/**
 * Enqueues through `enqueue(data)` inside a PRODUCER span (`send <queue>`), adding the span's
 * context to the job data as `_trace`, so the consumer continues the same trace:
 * `withProducerSpan('discovery', 'discover', data, (d) => queue.add('discover', d))`.
 */
export async function withProducerSpan<T extends object, R>(
  queue: string,
  jobName: string,
  data: T,
  enqueue: (data: TracedJobData<T>) => Promise<R>,
  attributes: Attributes = {},
): Promise<R> {
  const span = trace.getTracer('switchboard').startSpan(`send ${queue}`, {
    kind: SpanKind.PRODUCER,
    attributes: {
      'messaging.system': 'bullmq',
      'messaging.destination.name': queue,
      'messaging.operation.type': 'send',
      'switchboard.job.name': jobName,
      ...attributes,
    },
  });
  try {
    const ctx = trace.setSpan(context.active(), span);
    const traced = { ...data, _trace: injectTraceContext({}, ctx) as Record<string, string> };
    return await context.with(ctx, () => enqueue(traced));
  } finally {
    span.end();
  }
}
