import { bullPrefix } from './bull-prefix';

describe('bullPrefix', () => {
  it('wraps a prefix in a hash tag, once', () => {
    expect(bullPrefix('bull')).toBe('{bull}');
    expect(bullPrefix('{bull}')).toBe('{bull}');
    expect(bullPrefix('sb:{jobs}')).toBe('sb:{jobs}');
    // An empty tag is no tag for Redis Cluster: wrap again.
    expect(bullPrefix('a{}')).toBe('{a{}}');
  });
});
