import type { Attributes, Meter, MetricOptions } from '@opentelemetry/api';
import { CellTree } from './cell-tree';

interface Cell {
  readonly attributes: Attributes;
  value: number;
}

/**
 * A monotonic counter for the per-request hot path: each attribute set is a cell found by its
 * label values in nested maps and incremented in place; the cells are reported through an
 * observable counter when the meter collects. A synchronous `Counter.add` hashes its attribute
 * object (keys sorted, JSON) on every call; here that happens once per series per collection.
 * Same instrument name and kind on the wire (a cumulative monotonic sum, `_total` in Prometheus).
 * Label values must be bounded (series-budgeted), as for any counter.
 */
export class CellCounter {
  private readonly tree: CellTree<Cell>;

  /** `upDown`: the sum may go down too (an in-flight gauge); exported as an up-down counter. */
  constructor(
    meter: Meter,
    name: string,
    options: MetricOptions,
    attributesOf: (a: string, b: string, c: string, d: string) => Attributes,
    upDown = false,
  ) {
    this.tree = new CellTree(attributesOf, (attributes) => ({ attributes, value: 0 }));
    (upDown ? meter.createObservableUpDownCounter(name, options) : meter.createObservableCounter(name, options)).addCallback((result) => {
      for (const cell of this.tree.cells) result.observe(cell.value, cell.attributes);
    });
  }

  /** Adds `value` to the series of these label values. */
  add(value: number, a: string, b: string, c: string, d: string): void {
    const cell = this.tree.cell(a, b, c, d);
    cell.value += value;
  }
}
