import type { Attributes, Meter, MetricOptions } from '@opentelemetry/api';

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
  private readonly cells: Cell[] = [];
  private readonly root = new Map<string, unknown>();

  constructor(
    meter: Meter,
    name: string,
    options: MetricOptions,
    private readonly attributesOf: (a: string, b: string, c: string, d: string) => Attributes,
  ) {
    meter.createObservableCounter(name, options).addCallback((result) => {
      for (const cell of this.cells) result.observe(cell.value, cell.attributes);
    });
  }

  /** Adds `value` to the series of these label values. */
  add(value: number, a: string, b: string, c: string, d: string): void {
    const l2 = level(this.root, a);
    const l3 = level(l2, b);
    const l4 = level(l3, c);
    let cell = l4.get(d) as Cell | undefined;
    if (!cell) {
      cell = { attributes: Object.freeze(this.attributesOf(a, b, c, d)), value: 0 };
      l4.set(d, cell);
      this.cells.push(cell);
    }
    cell.value += value;
  }
}

/** The map under `key` in `map` (made when missing): one level of a cell tree keyed by label values. */
export function level(map: Map<string, unknown>, key: string): Map<string, unknown> {
  let next = map.get(key) as Map<string, unknown> | undefined;
  if (!next) map.set(key, (next = new Map()));
  return next;
}
