import { Tool, type ToolClass, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import type { ContractInfo, ContractInfoService } from '../services/contract-info.service';
import { chainAddressTool } from './chain-input-schemas';

const DEFINITION: ToolDefinition = chainAddressTool(
  'get_contract_info',
  'Contract info',
  'Describe an address on an EVM chain: contract or EOA, proxy (EIP-1967 / EIP-1167) with its implementation, name, ' +
    'protocol adapter (uniswap_v3_pool, erc20, erc721, unknown), and counts of view functions, write functions and events ' +
    '(from a registered ABI, or from bytecode analysis; the source is stated).',
);

/** get_contract_info: what is at an address (contract/EOA, proxy, name, adapter, interface size), answered by `service`. */
export function getContractInfoTool(service: ContractInfoService): ToolClass {
  return class GetContractInfoTool extends Tool {
    static override readonly definition = DEFINITION;

    static override payload(args: Record<string, unknown>, _ctx: ToolContext): Promise<ContractInfo> {
      return service.info({ chain: args['chain'], address: args['address'] });
    }
  };
}
