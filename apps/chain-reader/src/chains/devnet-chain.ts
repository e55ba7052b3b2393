import type { Devnet } from '../devnet/start-devnet';
import type { ChainConfig } from './chain-config';

/** Chain config for a running devnet: its RPC URL(s), deployed factory, and pricing anchors. */
export function devnetChain(devnet: Pick<Devnet, 'addresses' | 'chainId' | 'abis'>, rpcUrls: string[]): ChainConfig {
  const a = devnet.addresses;
  const probeAbi = devnet.abis['DevProbe'];
  return {
    slug: 'devnet',
    name: 'Local devnet (anvil)',
    chainId: devnet.chainId,
    rpcUrls,
    rpcTimeoutMs: 2_000,
    multicall3: a.multicall3,
    uniswapV3Factory: a.factory,
    stablecoins: [a.usdc],
    feeds: [{ token: a.weth, feed: a.ethUsdFeed, maxAgeSec: 10 * 365 * 86_400 }],
    anchorPools: [{ token: a.tkn, pool: a.pools.tknWeth.address, quote: a.weth, minDepthUsd: 10_000 }],
    minRouteDepthUsd: 1_000,
    registeredAbis: probeAbi ? { [a.probe.toLowerCase()]: { label: 'DevProbe', abi: probeAbi, callerSensitive: ['whoami()'] } } : {},
  };
}
