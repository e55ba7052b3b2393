import type { LocalBundle } from '@switchboard/catalog';
import type { ChainRuntime } from './chain-runtime';
import { getContractInfoTool } from './tools/get-contract-info.tool';
import { getUniswapV3PoolTool } from './tools/get-uniswap-v3-pool.tool';
import { readContractStateTool } from './tools/read-contract-state.tool';

/** The built-in `chain` catalog: three read-only EVM tools, each answered by a service of `runtime`. */
export function chainBundle(runtime: ChainRuntime): LocalBundle {
  return {
    id: 'chain',
    server: {
      name: 'switchboard-chain-reader',
      version: '0.1.0',
      title: 'Switchboard chain reader',
      description: 'Batched, cached EVM contract reads',
    },
    instructions: 'Read-only EVM tools. Pass a chain slug (eth, base, arbitrum, optimism, polygon, devnet) and a 0x address.',
    tools: [getContractInfoTool(runtime.contractInfo), readContractStateTool(runtime.contractState), getUniswapV3PoolTool(runtime.pools)],
  };
}
