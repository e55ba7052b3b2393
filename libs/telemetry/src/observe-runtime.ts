import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { metrics, type BatchObservableResult } from '@opentelemetry/api';

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

let stop: (() => void) | undefined;

/**
 * Runtime metrics from `perf_hooks` / `v8` (the OpenTelemetry runtime-node instrumentation is
 * not installed), named after the semconv `nodejs.*` / `v8js.*` metrics:
 * `nodejs_eventloop_delay_{min,max,mean,p50,p90,p99}_seconds` (sampled every 20 ms and reset at
 * each collection), `nodejs_eventloop_utilization`, `v8js_memory_heap_used_bytes` and
 * `v8js_memory_heap_limit_bytes` by `v8js_heap_space_name`, `process_memory_rss_bytes`, and the
 * `v8js_gc_duration_seconds{v8js_gc_type}` histogram. Idempotent; returns a stop function.
 */
export function observeRuntime(): () => void {
  if (stop) return stop;
  const meter = metrics.getMeter('switchboard.runtime');
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const gauge = (name: string, description: string, unit: string) => meter.createObservableGauge(name, { description, unit });
  const lag = {
    min: gauge('nodejs.eventloop.delay.min', 'Event loop minimum delay', 's'),
    max: gauge('nodejs.eventloop.delay.max', 'Event loop maximum delay', 's'),
    mean: gauge('nodejs.eventloop.delay.mean', 'Event loop mean delay', 's'),
    p50: gauge('nodejs.eventloop.delay.p50', 'Event loop 50th percentile delay', 's'),
    p90: gauge('nodejs.eventloop.delay.p90', 'Event loop 90th percentile delay', 's'),
    p99: gauge('nodejs.eventloop.delay.p99', 'Event loop 99th percentile delay', 's'),
  };
  const utilization = gauge('nodejs.eventloop.utilization', 'Event loop utilization since the last collection (0..1)', '1');
  const heapUsed = gauge('v8js.memory.heap.used', 'Heap memory used by V8 heap space', 'By');
  const heapLimit = gauge('v8js.memory.heap.limit', 'Heap memory size available by V8 heap space', 'By');
  const rss = gauge('process.memory.rss', 'Resident set size of the process', 'By');
  const gc = meter.createHistogram('v8js.gc.duration', {
    description: 'Garbage collection duration',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1] },
  });
  let lastElu = performance.eventLoopUtilization();
  const ns = (v: number) => (Number.isFinite(v) ? v / 1e9 : 0);
  const observables = [lag.min, lag.max, lag.mean, lag.p50, lag.p90, lag.p99, utilization, heapUsed, heapLimit, rss];
  const collect = (result: BatchObservableResult) => {
    result.observe(lag.min, ns(delay.min));
    result.observe(lag.max, ns(delay.max));
    result.observe(lag.mean, ns(delay.mean));
    result.observe(lag.p50, ns(delay.percentile(50)));
    result.observe(lag.p90, ns(delay.percentile(90)));
    result.observe(lag.p99, ns(delay.percentile(99)));
    delay.reset();
    const elu = performance.eventLoopUtilization(lastElu);
    lastElu = performance.eventLoopUtilization();
    result.observe(utilization, elu.utilization);
    for (const space of getHeapSpaceStatistics()) {
      const attrs = { 'v8js.heap.space.name': space.space_name };
      result.observe(heapUsed, space.space_used_size, attrs);
      result.observe(heapLimit, space.space_size, attrs);
    }
    result.observe(rss, process.memoryUsage.rss());
  };
  meter.addBatchObservableCallback(collect, observables);
  const gcAttrs = new Map<number, { 'v8js.gc.type': string }>();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      let attrs = gcAttrs.get(kind);
      if (!attrs) {
        attrs = { 'v8js.gc.type': GC_KINDS[kind] ?? 'other' };
        gcAttrs.set(kind, attrs);
      }
      gc.record(entry.duration / 1000, attrs);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  stop = () => {
    meter.removeBatchObservableCallback(collect, observables);
    observer.disconnect();
    delay.disable();
    stop = undefined;
  };
  return stop;
}
