import type { LocalBundle } from '@switchboard/catalog';
import { GetContractInfoTool } from './tools/get-contract-info.tool';
import { GetUniswapV3PoolTool } from './tools/get-uniswap-v3-pool.tool';
import { ReadContractStateTool } from './tools/read-contract-state.tool';

/** The built-in `chain` catalog: three read-only EVM tools served by the chain-reader. */
export const chainBundle: LocalBundle = {
  id: 'chain',
  server: { name: 'switchboard-chain-reader', version: '0.1.0', title: 'Switchboard chain reader', description: 'Batched, cached EVM contract reads' },
  instructions: 'Read-only EVM tools. Pass a chain slug (eth, base, arbitrum, optimism, polygon, devnet) and a 0x address.',
  tools: [GetContractInfoTool, ReadContractStateTool, GetUniswapV3PoolTool],
};
