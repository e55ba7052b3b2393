/**
 * Exact non-negative rational numbers on bigint. Prices and USD values stay exact until they
 * are formatted, so nothing passes through a 53-bit float before the final division.
 */
export interface Ratio {
  num: bigint;
  den: bigint;
}

/** a/b as a Ratio (b must be non-zero). */
export function ratio(num: bigint, den: bigint = 1n): Ratio {
  if (den === 0n) throw new RangeError('ratio with zero denominator');
  return den < 0n ? { num: -num, den: -den } : { num, den };
}

export function mulRatio(a: Ratio, b: Ratio): Ratio {
  return ratio(a.num * b.num, a.den * b.den);
}

export function addRatio(a: Ratio, b: Ratio): Ratio {
  return ratio(a.num * b.den + b.num * a.den, a.den * b.den);
}

export function invertRatio(a: Ratio): Ratio {
  return ratio(a.den, a.num);
}

/** `amount / 10^decimals` — a raw token amount in whole tokens. */
export function fromUnits(amount: bigint, decimals: number): Ratio {
  return ratio(amount, 10n ** BigInt(decimals));
}

/** Compares a and b: -1, 0 or 1. */
export function compareRatio(a: Ratio, b: Ratio): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/**
 * Decimal string with at least `significant` significant digits (truncated, not rounded),
 * trailing zeros trimmed: 2941.06286223…, 0.000340013134…, 0 for zero.
 */
export function formatRatio(r: Ratio, significant = 18): string {
  const negative = r.num < 0n;
  const num = negative ? -r.num : r.num;
  if (num === 0n) return '0';
  const intPart = num / r.den;
  const intDigits = intPart === 0n ? 0 : intPart.toString().length;
  let scale = Math.max(0, significant - intDigits);
  if (intPart === 0n) {
    // leading zeros after the point do not count as significant; bounded by the ratio's size
    let probe = num * 10n;
    let zeros = 0;
    while (probe < r.den && zeros < 200) {
      probe *= 10n;
      zeros += 1;
    }
    scale = zeros + significant;
  }
  const scaled = (num * 10n ** BigInt(scale)) / r.den;
  let s = scaled.toString().padStart(scale + 1, '0');
  if (scale > 0) {
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`.replace(/\.?0+$/, '');
  }
  return negative ? `-${s}` : s;
}

/** A JS number with `decimals` places, for values meant to be read (USD amounts). Divides in bigint first. */
export function ratioToNumber(r: Ratio, decimals = 2): number {
  const scale = 10n ** BigInt(decimals);
  const scaled = (r.num * scale) / r.den;
  return Number(scaled) / Number(scale);
}
