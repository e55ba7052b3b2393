import { metrics, type BatchObservableResult, type Observable } from '@opentelemetry/api';

/** One number an app keeps itself (a size, or a total it only ever adds to). */
export interface Reading {
  /** OTel name (`auth.tenants.resident`); Prometheus shows `auth_tenants_resident`, a counter with `_total`. */
  name: string;
  /** `gauge`: a level read as it is now; `counter`: a monotonic total. */
  kind: 'gauge' | 'counter';
  description: string;
  read: () => number;
}

/**
 * Exports numbers an app keeps in plain fields as observable instruments of the `switchboard`
 * meter, read only when metrics are collected, so the request path just bumps a field. Call after
 * `startTelemetry`. Returns a function that stops observing: an app closed inside a process that
 * lives on (tests, a second app in the same process) must not keep reporting its numbers.
 */
export function observeReadings(readings: Reading[]): () => void {
  const meter = metrics.getMeter('switchboard');
  const observed: Array<[Observable, () => number]> = readings.map((r) => [
    r.kind === 'gauge'
      ? meter.createObservableGauge(r.name, { description: r.description })
      : meter.createObservableCounter(r.name, { description: r.description }),
    r.read,
  ]);
  const collect = (result: BatchObservableResult) => {
    for (const [instrument, read] of observed) result.observe(instrument, read());
  };
  const instruments = observed.map(([instrument]) => instrument);
  meter.addBatchObservableCallback(collect, instruments);
  return () => meter.removeBatchObservableCallback(collect, instruments);
}
