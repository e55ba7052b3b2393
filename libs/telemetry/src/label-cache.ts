/**
 * Interned attribute objects keyed by up to five label values, so recording a metric on the
 * hot path looks one up instead of building a fresh object per request. Keys must be bounded
 * (series-budgeted label values); `maxEntries` is a backstop that empties the cache when hit.
 */
export class LabelCache<T> {
  private root = new Map<string, unknown>();
  private size = 0;

  constructor(
    private readonly build: (a: string, b: string, c: string, d: string, e: string) => T,
    private readonly maxEntries = 100_000,
  ) {}

  /** The value for (a, b, c, d, e), built once. */
  get(a: string, b = '', c = '', d = '', e = ''): T {
    const l1 = this.level(this.root, a);
    const l2 = this.level(l1, b);
    const l3 = this.level(l2, c);
    const l4 = this.level(l3, d);
    const hit = l4.get(e) as T | undefined;
    if (hit !== undefined) return hit;
    if (this.size >= this.maxEntries) {
      this.root = new Map();
      this.size = 0;
      return this.get(a, b, c, d, e);
    }
    const value = this.build(a, b, c, d, e);
    l4.set(e, value);
    this.size += 1;
    return value;
  }

  private level(map: Map<string, unknown>, key: string): Map<string, unknown> {
    let next = map.get(key) as Map<string, unknown> | undefined;
    if (!next) {
      next = new Map();
      map.set(key, next);
    }
    return next;
  }
}
