import { readFileSync } from 'node:fs';
import { V3_CORE_FACTORY_ADDRESSES, WETH9 } from '@uniswap/sdk-core';
import { encodeAbiParameters, getAddress, getCreate2Address, keccak256, type Hex } from 'viem';
import * as viemChains from 'viem/chains';
import * as viemTokens from 'viem/tokens';
import { defaultChains } from './default-chains';

// Every built-in public-chain address against data a registry package ships.
const lc = (a: string): string => a.toLowerCase();
const chainById = new Map<number, { contracts?: { multicall3?: { address: string } } }>(
  Object.values(viemChains)
    .filter((c): c is typeof viemChains.mainnet => typeof c === 'object' && c !== null && 'id' in c)
    .map((c) => [c.id, c]),
);
/** USD tokens viem ships, by chain id. */
function usdTokens(chainId: number): string[] {
  return Object.values(viemTokens)
    .filter(
      (t): t is typeof viemTokens.usdc =>
        (typeof t === 'object' || typeof t === 'function') &&
        t !== null &&
        'addresses' in t &&
        (t as { currency?: string }).currency === 'USD',
    )
    .map((t) => (t.addresses as Record<number, string | undefined>)[chainId])
    .filter((a): a is string => typeof a === 'string')
    .map(lc);
}
const poolInitCodeHash = keccak256(
  (
    JSON.parse(readFileSync(require.resolve('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'), 'utf8')) as {
      bytecode: Hex;
    }
  ).bytecode,
);

describe('default chains: every address has a shipped source', () => {
  const chains = Object.values(defaultChains());

  it.each(chains.map((c) => [c.slug, c] as const))('%s: Multicall3 is the one viem/chains lists', (_slug, c) => {
    const known = chainById.get(c.chainId)?.contracts?.multicall3?.address;
    expect(known).toBeDefined();
    expect(lc(c.multicall3)).toBe(lc(known!));
  });

  it.each(chains.map((c) => [c.slug, c] as const))('%s: the Uniswap V3 factory is the one @uniswap/sdk-core lists', (_slug, c) => {
    expect(c.uniswapV3Factory).not.toBeNull();
    expect(lc(c.uniswapV3Factory!)).toBe(lc(V3_CORE_FACTORY_ADDRESSES[c.chainId]!));
  });

  it.each(chains.map((c) => [c.slug, c] as const))('%s: stablecoins are USD tokens viem/tokens lists for the chain', (_slug, c) => {
    expect(c.stablecoins.length).toBeGreaterThan(0);
    for (const s of c.stablecoins) expect(usdTokens(c.chainId)).toContain(lc(s));
  });

  it.each(chains.map((c) => [c.slug, c] as const))('%s: no feeds (no installed package ships Chainlink addresses)', (_slug, c) => {
    expect(c.feeds).toEqual([]);
  });

  it.each(chains.map((c) => [c.slug, c] as const))(
    '%s: anchor pools are WETH9 (sdk-core) / a listed stablecoin pools at their CREATE2 address',
    (_slug, c) => {
      for (const a of c.anchorPools) {
        expect(lc(a.token)).toBe(lc(WETH9[c.chainId]!.address));
        expect(usdTokens(c.chainId)).toContain(lc(a.quote));
        const [t0, t1] = lc(a.token) < lc(a.quote) ? [a.token, a.quote] : [a.quote, a.token];
        const found = [100, 500, 3000, 10_000].some(
          (fee) =>
            lc(
              getCreate2Address({
                from: getAddress(V3_CORE_FACTORY_ADDRESSES[c.chainId]!),
                salt: keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [t0, t1, fee])),
                bytecodeHash: poolInitCodeHash,
              }),
            ) === lc(a.pool),
        );
        expect(found).toBe(true);
      }
    },
  );
});
