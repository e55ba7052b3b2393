/**
 * Which held tenants a periodic comparison with Redis reads: at most `size` a period, the next
 * ones each time, so a working set of any size costs the same per period and every tenant held
 * throughout is compared within about ceil(held / size) periods. The comparison is a safety net
 * for `catalog:changed` messages missed while connected; a reconnect compares every held tenant.
 */
export class RollingWindow {
  private next = 0;

  constructor(private readonly size: number) {}

  take(ids: readonly string[]): string[] {
    if (ids.length <= this.size) {
      this.next = 0;
      return ids.slice();
    }
    const start = this.next % ids.length;
    const out = ids.slice(start, start + this.size);
    if (out.length < this.size) out.push(...ids.slice(0, this.size - out.length));
    this.next = (start + this.size) % ids.length;
    return out;
  }
}
