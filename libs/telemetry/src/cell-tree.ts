import type { Attributes } from '@opentelemetry/api';

/**
 * The series of an in-place instrument (CellCounter, CellHistogram): one cell per set of four
 * label values, found through nested maps keyed by the values, so a hot-path record builds no
 * key and hashes no attribute object. `make` builds a cell from its frozen attributes on first use.
 */
export class CellTree<C> {
  readonly cells: C[] = [];
  private readonly root = new Map<string, unknown>();

  constructor(
    private readonly attributesOf: (a: string, b: string, c: string, d: string) => Attributes,
    private readonly make: (attributes: Attributes) => C,
  ) {}

  /** The cell of these label values (made on first use). */
  cell(a: string, b: string, c: string, d: string): C {
    const l4 = level(level(level(this.root, a), b), c);
    let cell = l4.get(d) as C | undefined;
    if (cell === undefined) {
      cell = this.make(Object.freeze(this.attributesOf(a, b, c, d)));
      l4.set(d, cell);
      this.cells.push(cell);
    }
    return cell;
  }
}

function level(map: Map<string, unknown>, key: string): Map<string, unknown> {
  let next = map.get(key) as Map<string, unknown> | undefined;
  if (!next) map.set(key, (next = new Map()));
  return next;
}
