import { hrTime } from '@opentelemetry/core';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { CellHistogram, IN_PLACE_METRICS } from './cell-histogram';

describe('CellHistogram', () => {
  it('counts each value in the explicit bucket (b[i-1], b[i]], per label set, with count, sum, min and max', () => {
    const h = new CellHistogram('test.duration', 'a test', 's', [0.1, 1], (a, b, c, d) => ({
      a,
      b,
      ...(c ? { c } : {}),
      ...(d ? { d } : {}),
    }));
    for (const v of [0.05, 0.1, 0.5, 1, 3]) h.record(v, 'x', 'y', '', '');
    h.record(2, 'x', 'z', 'e', '');
    const data = h.metricData(hrTime());
    expect(data.descriptor).toMatchObject({ name: 'test.duration', unit: 's' });
    expect(data.dataPoints.map((p) => p.attributes)).toEqual([
      { a: 'x', b: 'y' },
      { a: 'x', b: 'z', c: 'e' },
    ]);
    const first = data.dataPoints[0]!.value as Histogram;
    expect(first.buckets).toEqual({ boundaries: [0.1, 1], counts: [2, 2, 1] });
    expect(first).toMatchObject({ count: 5, min: 0.05, max: 3 });
    expect(first.sum).toBeCloseTo(4.65);
    expect((data.dataPoints[1]!.value as Histogram).buckets.counts).toEqual([0, 0, 1]);
  });

  it('hands a collection copies: later records do not change what was collected', async () => {
    const h = new CellHistogram('test.copy', 'copy', 's', [1], (a) => ({ a }));
    h.record(0.5, 'k', '', '', '');
    const collected = await IN_PLACE_METRICS.collect();
    const metric = collected.resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'test.copy');
    h.record(0.5, 'k', '', '', '');
    expect((metric!.dataPoints[0]!.value as Histogram).count).toBe(1);
  });
});
