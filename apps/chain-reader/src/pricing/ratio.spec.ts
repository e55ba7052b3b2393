import { formatRatio, ratio, ratioToNumber } from './ratio';
import { encodeSqrtPriceX96, price0Per1, price1Per0 } from './sqrt-price';

describe('price math', () => {
  it('formats exact ratios with significant digits, small values included', () => {
    expect(formatRatio(ratio(1n, 3n), 6)).toBe('0.333333');
    expect(formatRatio(ratio(2941062862n, 1_000_000n), 8)).toBe('2941.0628');
    expect(formatRatio(ratio(1n, 10n ** 20n), 3)).toBe('0.00000000000000000001');
    expect(formatRatio(ratio(0n))).toBe('0');
    expect(ratioToNumber(ratio(600_038_534n, 1000n))).toBe(600038.53);
  });

  it('converts sqrtPriceX96 both ways for both token orders (USDC 6 / WETH 18)', () => {
    // WETH token0 (18) / USDC token1 (6) at 3000 USDC per WETH
    const s1 = encodeSqrtPriceX96(3000n, 1n, 18, 6);
    expect(Number(formatRatio(price1Per0(s1, 18, 6)))).toBeCloseTo(3000, 9);
    // USDC token0 / WETH token1 (mainnet order): 1/3000 WETH per USDC, S ≈ 1.4465e33
    const s2 = encodeSqrtPriceX96(1n, 3000n, 6, 18);
    expect(Number(s2) / 1e33).toBeCloseTo(1.4465, 3);
    expect(Number(formatRatio(price0Per1(s2, 6, 18)))).toBeCloseTo(3000, 9);
    // the CHAIN-NOTES worked example
    expect(formatRatio(price1Per0(4296667405838568955888831n, 18, 6), 12)).toMatch(/^2941\.0628622/);
  });
});
