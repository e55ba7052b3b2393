import { tamper } from './tamper';

describe('tamper', () => {
  it('always changes the character at the index, counting from either end', () => {
    expect(tamper('xAyz', 1)).toBe('xByz');
    expect(tamper('xAyz', -3)).toBe('xByz');
    expect(tamper('xByz', -3)).toBe('xAyz');
    expect(tamper('abcAd', -2)).toBe('abcBd');
  });

  it('refuses an index outside the value', () => {
    expect(() => tamper('abc', 3)).toThrow('index 3 is outside a value of length 3');
    expect(() => tamper('abc', -4)).toThrow(RangeError);
  });
});
