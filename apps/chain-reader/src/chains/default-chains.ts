import type { Address } from 'viem';
import type { AnchorPoolConfig, ChainConfig } from './chain-config';

// Every address below comes from data a registry package ships, and default-chains.spec.ts checks
// each one against that package (no hand-typed address without a source):
// - Multicall3: `viem/chains` (`contracts.multicall3.address` of each chain);
// - Uniswap V3 factories and WETH: `@uniswap/sdk-core` (`V3_CORE_FACTORY_ADDRESSES`, `WETH9`);
// - stablecoins: `viem/tokens` (`usdc.addresses`, the only USD stablecoin it lists on all five);
// - WETH/USDC anchor pools: CREATE2 of the factory with `@uniswap/v3-core`'s pool init code.
// No installed package ships Chainlink feed addresses, so the defaults have no feeds (add them
// per deployment with CHAINS_FILE); WETH is priced through the deepest WETH/USDC pool instead.

const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** Uniswap V3 factory on mainnet, Arbitrum, Optimism and Polygon (same CREATE address). */
const V3_FACTORY: Address = '0x1F98431c8aD98523631AE4a59f267346ea31F984';
/** Quote side of an anchor pool must hold at least this much USD before it prices WETH. */
const ANCHOR_MIN_DEPTH_USD = 1_000_000;

function chain(
  partial: Omit<ChainConfig, 'rpcUrls' | 'rpcTimeoutMs' | 'multicall3' | 'registeredAbis' | 'minRouteDepthUsd' | 'feeds'>,
): ChainConfig {
  return { ...partial, rpcUrls: [], rpcTimeoutMs: 4_000, multicall3: MULTICALL3, registeredAbis: {}, minRouteDepthUsd: 50_000, feeds: [] };
}

function wethAnchor(weth: Address, usdc: Address, pool: Address): AnchorPoolConfig {
  return { token: weth, quote: usdc, pool, minDepthUsd: ANCHOR_MIN_DEPTH_USD };
}

/**
 * Built-in public-chain settings (sources above). No RPC URLs: those come from
 * `CHAIN_RPC_URLS_<SLUG>` or `CHAINS_FILE`.
 */
export function defaultChains(): Record<string, ChainConfig> {
  return {
    eth: chain({
      slug: 'eth',
      name: 'Ethereum',
      chainId: 1,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: ['0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
      anchorPools: [
        wethAnchor(
          '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
          '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
          '0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640',
        ),
      ],
    }),
    base: chain({
      slug: 'base',
      name: 'Base',
      chainId: 8453,
      uniswapV3Factory: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
      stablecoins: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
      anchorPools: [
        wethAnchor(
          '0x4200000000000000000000000000000000000006',
          '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
          '0xd0b53D9277642d899DF5C87A3966A349A798F224',
        ),
      ],
    }),
    arbitrum: chain({
      slug: 'arbitrum',
      name: 'Arbitrum One',
      chainId: 42161,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: ['0xaf88d065e77c8cC2239327C5EDb3A432268e5831'],
      anchorPools: [
        wethAnchor(
          '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
          '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
          '0xC6962004f452bE9203591991D15f6b388e09E8D0',
        ),
      ],
    }),
    optimism: chain({
      slug: 'optimism',
      name: 'OP Mainnet',
      chainId: 10,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: ['0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'],
      anchorPools: [
        wethAnchor(
          '0x4200000000000000000000000000000000000006',
          '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
          '0x1fb3cf6e48F1E7B10213E7b6d87D4c073C7Fdb7b',
        ),
      ],
    }),
    polygon: chain({
      slug: 'polygon',
      name: 'Polygon PoS',
      chainId: 137,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: ['0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'],
      // @uniswap/sdk-core's WETH9 on Polygon is WPOL, and no package here ships bridged WETH: no anchor.
      anchorPools: [],
    }),
  };
}
