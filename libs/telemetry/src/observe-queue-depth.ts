import { switchboardMetrics } from './switchboard-metrics';

/** The part of a BullMQ `Queue` the depth gauge reads. */
export interface CountableQueue {
  readonly name: string;
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

const STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'];

/**
 * Reports `queue_depth{queue,state}` for a BullMQ queue at every metrics collection.
 * Returns a function that stops observing (call it before closing the queue).
 */
export function observeQueueDepth(queue: CountableQueue): () => void {
  const gauge = switchboardMetrics().queue.depth;
  const callback = async (result: { observe(value: number, attributes: Record<string, string>): void }) => {
    const counts = await queue.getJobCounts(...STATES).catch(() => undefined);
    if (!counts) return;
    for (const state of STATES) result.observe(counts[state] ?? 0, { queue: queue.name, state });
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
