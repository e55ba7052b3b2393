import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type CollectionResult,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { CellTree } from './cell-tree';

interface Cell {
  readonly attributes: Attributes;
  /** Per bucket (`boundaries.length + 1`), OpenTelemetry's explicit-bucket layout: bucket i holds (b[i-1], b[i]]. */
  readonly counts: number[];
  count: number;
  sum: number;
  min: number;
  max: number;
}

/**
 * A histogram for the per-request hot path, aggregated in place: each attribute set is a cell
 * found by its label values in nested maps, and a record adds to the cell's buckets. A
 * synchronous `Histogram.record` hashes its attribute object (keys sorted, joined) on every
 * call, which costs time and garbage on every MCP request. The cells are read at collection
 * by {@link IN_PLACE_METRICS}, which every reader of `startTelemetry` is given, as a cumulative
 * explicit-bucket histogram with the same name, unit and buckets on the wire.
 * Label values must be bounded (series-budgeted), as for any histogram.
 */
export class CellHistogram {
  private readonly tree: CellTree<Cell>;
  private readonly startTime: HrTime = hrTime();

  constructor(
    private readonly name: string,
    private readonly description: string,
    private readonly unit: string,
    private readonly boundaries: readonly number[],
    attributesOf: (a: string, b: string, c: string, d: string) => Attributes,
  ) {
    const buckets = boundaries.length + 1;
    this.tree = new CellTree(attributesOf, (attributes) => ({
      attributes,
      counts: new Array<number>(buckets).fill(0),
      count: 0,
      sum: 0,
      min: Infinity,
      max: -Infinity,
    }));
    IN_PLACE_METRICS.add(this);
  }

  /** Records `value` in the series of these label values. */
  record(value: number, a: string, b: string, c: string, d: string): void {
    const cell = this.tree.cell(a, b, c, d);
    const bounds = this.boundaries;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    cell.counts[i]! += 1;
    cell.count += 1;
    cell.sum += value;
    if (value < cell.min) cell.min = value;
    if (value > cell.max) cell.max = value;
  }

  /** The cumulative data points since start (copies: collection must not see later records). */
  metricData(endTime: HrTime): HistogramMetricData {
    return {
      descriptor: { name: this.name, description: this.description, unit: this.unit, valueType: ValueType.DOUBLE },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: this.tree.cells.map((c) => ({
        startTime: this.startTime,
        endTime,
        attributes: c.attributes,
        value: { buckets: { boundaries: [...this.boundaries], counts: [...c.counts] }, count: c.count, sum: c.sum, min: c.min, max: c.max },
      })),
    };
  }
}

/** The metric producer of every {@link CellHistogram}: passed to each metric reader as one of its `metricProducers`. */
class InPlaceMetrics implements MetricProducer {
  private histograms = new Set<CellHistogram>();

  add(histogram: CellHistogram): void {
    this.histograms.add(histogram);
  }

  /** Forgets the histograms made so far (their meter provider was replaced). */
  clear(): void {
    this.histograms = new Set();
  }

  collect(): Promise<CollectionResult> {
    const endTime = hrTime();
    const metrics = [...this.histograms].map((h) => h.metricData(endTime)).filter((m) => m.dataPoints.length > 0);
    return Promise.resolve({
      resourceMetrics: { resource: emptyResource(), scopeMetrics: metrics.length ? [{ scope: { name: 'switchboard' }, metrics }] : [] },
      errors: [],
    });
  }
}

export const IN_PLACE_METRICS = new InPlaceMetrics();
