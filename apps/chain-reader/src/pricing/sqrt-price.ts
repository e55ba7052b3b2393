import { ratio, type Ratio } from './ratio';

const Q192 = 1n << 192n;

/** Integer square root (Newton, starting above the root so it always terminates). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('isqrt of a negative number');
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + n / x) / 2n;
  }
  return x;
}

/**
 * Human price of token0 in token1 (token1 per 1 token0, decimals applied) from a V3 sqrtPriceX96:
 * `S² · 10^d0 / (2^192 · 10^d1)`, kept as an exact ratio.
 */
export function price1Per0(sqrtPriceX96: bigint, decimals0: number, decimals1: number): Ratio {
  return ratio(sqrtPriceX96 * sqrtPriceX96 * 10n ** BigInt(decimals0), Q192 * 10n ** BigInt(decimals1));
}

/** Human price of token1 in token0 (token0 per 1 token1): the inverse of price1Per0. */
export function price0Per1(sqrtPriceX96: bigint, decimals0: number, decimals1: number): Ratio {
  return ratio(Q192 * 10n ** BigInt(decimals1), sqrtPriceX96 * sqrtPriceX96 * 10n ** BigInt(decimals0));
}

/** sqrtPriceX96 for a human price `num/den` of token0 in token1: `floor(sqrt(num · 10^d1 · 2^192 / (den · 10^d0)))`. */
export function encodeSqrtPriceX96(num: bigint, den: bigint, decimals0: number, decimals1: number): bigint {
  return isqrt((num * 10n ** BigInt(decimals1) * Q192) / (den * 10n ** BigInt(decimals0)));
}
