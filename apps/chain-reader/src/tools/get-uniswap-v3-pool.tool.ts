import { Tool, type ToolClass, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import type { UniswapV3PoolPanel, UniswapV3PoolService } from '../services/uniswap-v3-pool.service';
import { chainAddressTool } from './chain-input-schemas';

const DEFINITION: ToolDefinition = chainAddressTool(
  'get_uniswap_v3_pool',
  'Uniswap V3 pool',
  'Read a Uniswap V3 pool: pair, fee tier, tick, in-range liquidity, sqrtPriceX96, the price in both directions (decimals applied), ' +
    'token details and TVL in USD priced on-chain (stablecoins, Chainlink-style feeds, anchor pools with a minimum depth; ' +
    'tvl_usd is null with the reason when no price is available). All values come from one block.',
);

/** get_uniswap_v3_pool: a pool panel with prices both ways and on-chain-priced TVL, answered by `pools`. */
export function getUniswapV3PoolTool(pools: UniswapV3PoolService): ToolClass {
  return class GetUniswapV3PoolTool extends Tool {
    static override readonly definition = DEFINITION;

    static override payload(args: Record<string, unknown>, _ctx: ToolContext): Promise<UniswapV3PoolPanel> {
      return pools.panel({ chain: args['chain'], address: args['address'] });
    }
  };
}
