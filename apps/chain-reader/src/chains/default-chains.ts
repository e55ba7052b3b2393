import type { Address } from 'viem';
import type { ChainConfig } from './chain-config';

const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** Uniswap V3 factory on mainnet, Arbitrum, Optimism and Polygon (same CREATE address). */
const V3_FACTORY: Address = '0x1F98431c8aD98523631AE4a59f267346ea31F984';
const DAY = 86_400;

function chain(partial: Omit<ChainConfig, 'rpcUrls' | 'rpcTimeoutMs' | 'multicall3' | 'registeredAbis' | 'minRouteDepthUsd'>): ChainConfig {
  return { ...partial, rpcUrls: [], rpcTimeoutMs: 4_000, multicall3: MULTICALL3, registeredAbis: {}, minRouteDepthUsd: 50_000 };
}

/**
 * Built-in public-chain settings (addresses from the Uniswap and Chainlink deployment lists).
 * No RPC URLs: those come from `CHAIN_RPC_URLS_<SLUG>` or `CHAINS_FILE`.
 */
export function defaultChains(): Record<string, ChainConfig> {
  return {
    eth: chain({
      slug: 'eth',
      name: 'Ethereum',
      chainId: 1,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: [
        '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', // USDC
        '0xdAC17F958D2ee523a2206206994597C13D831ec7', // USDT
        '0x6B175474E89094C44Da98b954EedeAC495271d0F', // DAI
      ],
      feeds: [{ token: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', feed: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419', maxAgeSec: DAY }],
      anchorPools: [],
    }),
    base: chain({
      slug: 'base',
      name: 'Base',
      chainId: 8453,
      uniswapV3Factory: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
      stablecoins: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
      feeds: [{ token: '0x4200000000000000000000000000000000000006', feed: '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70', maxAgeSec: DAY }],
      anchorPools: [],
    }),
    arbitrum: chain({
      slug: 'arbitrum',
      name: 'Arbitrum One',
      chainId: 42161,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: ['0xaf88d065e77c8cC2239327C5EDb3A432268e5831', '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'],
      feeds: [{ token: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1', feed: '0x639Fe6ab55C921f74e7fac1ee960C0B6293ba612', maxAgeSec: DAY }],
      anchorPools: [],
    }),
    optimism: chain({
      slug: 'optimism',
      name: 'OP Mainnet',
      chainId: 10,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: ['0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'],
      feeds: [{ token: '0x4200000000000000000000000000000000000006', feed: '0x13e3Ee699D1909E989722E753853AE30b17e08c5', maxAgeSec: DAY }],
      anchorPools: [],
    }),
    polygon: chain({
      slug: 'polygon',
      name: 'Polygon PoS',
      chainId: 137,
      uniswapV3Factory: V3_FACTORY,
      stablecoins: ['0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'],
      feeds: [{ token: '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619', feed: '0xF9680D99D6C9589e2a93a78A04A279e509205945', maxAgeSec: DAY }],
      anchorPools: [],
    }),
  };
}
