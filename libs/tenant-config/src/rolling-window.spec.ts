import { RollingWindow } from './rolling-window';

describe('RollingWindow', () => {
  it('takes every id while they fit', () => {
    const w = new RollingWindow(3);
    expect(w.take(['a', 'b'])).toEqual(['a', 'b']);
    expect(w.take(['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
  });

  it('takes the next ids each period, wrapping, so every id is read within ceil(n / size) periods', () => {
    const w = new RollingWindow(2);
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const seen = [w.take(ids), w.take(ids), w.take(ids)];
    expect(seen).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'a'],
    ]);
    expect(new Set(seen.flat())).toEqual(new Set(ids));
    expect(w.take(ids)).toEqual(['b', 'c']);
  });
});
