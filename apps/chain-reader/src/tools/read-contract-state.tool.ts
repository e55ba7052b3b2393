import { Tool, type ToolClass, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import type { ContractStateService, ReadContractStateResult } from '../services/contract-state.service';
import { ADDRESS_PROPERTY, CHAIN_PROPERTY, chainReadAnnotations } from './chain-input-schemas';

const DEFINITION: ToolDefinition = {
  name: 'read_contract_state',
  title: 'Read contract state',
  description:
    'Call a view/pure function of a contract and return its decoded result (integers as decimal strings, tuples as named objects), ' +
    'with the block number and whether it came from cache. The function comes from the ABI registered for the address, the standard ' +
    'interfaces (ERC-20/721, Uniswap V3 pool, Chainlink feed), the `abi` argument, or a full signature in `function_name` ' +
    '("function balanceOf(address) view returns (uint256)"); behind an EIP-1967/1167/beacon proxy the implementation\'s registered ABI is used. ' +
    'Use "name(types)" to pick an overload. Reads are batched inside Multicall3, so msg.sender is Multicall3: pass `caller` for functions that ' +
    'depend on msg.sender (the call then runs as its own eth_call from that address; `execution` says which way it ran). Every answer carries ' +
    'block_number, fetched_at and cached. Never sends a transaction.',
  inputSchema: {
    type: 'object',
    properties: {
      chain: CHAIN_PROPERTY,
      address: ADDRESS_PROPERTY,
      function_name: {
        type: 'string',
        minLength: 1,
        maxLength: 2000,
        description: 'Function name, "name(type,…)", or a human-readable signature.',
      },
      args: {
        description: 'Arguments in ABI order (array) or by input name (object). Integers may be numbers or decimal strings.',
        anyOf: [{ type: 'array', maxItems: 64 }, { type: 'object' }],
      },
      abi: {
        description: 'ABI to use instead of the known one: a JSON ABI array, one fragment, or human-readable signatures.',
        anyOf: [{ type: 'array', maxItems: 2000 }, { type: 'object' }, { type: 'string', maxLength: 200_000 }],
      },
      block_number: {
        description: 'Block to read at (default latest; not beyond the chain head).',
        anyOf: [
          { type: 'integer', minimum: 0 },
          { type: 'string', pattern: '^(latest|[0-9]{1,20})$' },
        ],
      },
      caller: {
        ...ADDRESS_PROPERTY,
        description:
          'msg.sender for a caller-sensitive view function: sent as a plain eth_call from this address instead of inside Multicall3.',
      },
    },
    required: ['chain', 'address', 'function_name'],
    additionalProperties: false,
  },
  annotations: chainReadAnnotations('Read contract state'),
};

/** read_contract_state: one view/pure call, batched and cached, answered by `state`. */
export function readContractStateTool(state: ContractStateService): ToolClass {
  return class ReadContractStateTool extends Tool {
    static override readonly definition = DEFINITION;

    static override payload(args: Record<string, unknown>, _ctx: ToolContext): Promise<ReadContractStateResult> {
      return state.read({
        chain: args['chain'],
        address: args['address'],
        function_name: args['function_name'],
        args: args['args'],
        abi: args['abi'],
        block_number: args['block_number'],
        caller: args['caller'],
      });
    }
  };
}
