import { decodeFunctionResult, encodeFunctionData, keccak256, type Abi, type Hex } from 'viem';
import { COMMON_ABI } from '../abi/common-abis';
import { coerceArgs } from '../abi/coerce-args';
import { describeRevert } from '../abi/describe-revert';
import { functionSignature, parseAbiArgument, resolveFunction, type FunctionSource } from '../abi/resolve-function';
import { outputsToJson, toJsonSafe } from '../abi/to-json-safe';
import type { ChainCache } from '../cache/chain-cache';
import { CHAIN_ERROR_CODES, chainError } from '../errors';
import { CallRevertedError, type BlockRef } from '../rpc/chain-rpc';
import type { ChainRegistry } from '../rpc/chain-registry';
import { parseAddress } from './parse-address';

/** Input of read_contract_state, as validated by the tool's schema. */
export interface ReadContractStateInput {
  chain: unknown;
  address: unknown;
  function_name: unknown;
  args?: unknown;
  abi?: unknown;
  block_number?: unknown;
}

export interface ReadContractStateResult {
  chain: string;
  address: string;
  function: string;
  abi_source: FunctionSource;
  args: unknown[];
  result: unknown;
  block_number: number;
  cached: boolean;
}

export interface ContractStateOptions {
  latestTtlSec: number;
  blockTtlSec: number;
}

/** read_contract_state: one view call, batched through Multicall3, cached by block ref + calldata. */
export class ContractStateService {
  constructor(private readonly chains: ChainRegistry, private readonly cache: ChainCache, private readonly options: ContractStateOptions) {}

  async read(input: ReadContractStateInput): Promise<ReadContractStateResult> {
    const rpc = this.chains.get(input.chain);
    const address = parseAddress(input.address);
    if (typeof input.function_name !== 'string' || input.function_name.trim() === '') {
      throw chainError(CHAIN_ERROR_CODES.BAD_INPUT, 'function_name: required, a function name, "name(types)" or a human-readable signature', { field: 'function_name' });
    }
    const block = parseBlock(input.block_number);
    const argAbi: Abi | undefined = input.abi === undefined || input.abi === null ? undefined : parseAbiArgument(input.abi);
    const argCount = Array.isArray(input.args) ? input.args.length : input.args && typeof input.args === 'object' ? Object.keys(input.args).length : 0;
    const registered = rpc.config.registeredAbis[address.toLowerCase()]?.abi;
    const { fn, abi, source } = resolveFunction(input.function_name, { argument: argAbi, registered, common: COMMON_ABI }, argCount);
    const signature = functionSignature(fn);
    const legacyConstant = (fn as { constant?: boolean }).constant === true;
    if (fn.stateMutability !== 'view' && fn.stateMutability !== 'pure' && !legacyConstant) {
      throw chainError(
        CHAIN_ERROR_CODES.NOT_VIEW,
        `function_name: ${signature} is ${fn.stateMutability}, not view/pure; read_contract_state only reads state and never sends transactions`,
        { field: 'function_name', stateMutability: fn.stateMutability },
      );
    }
    const values = coerceArgs(fn.inputs, input.args, signature);
    let data: Hex;
    try {
      data = encodeFunctionData({ abi: [fn], functionName: fn.name, args: values });
    } catch (err) {
      throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args: cannot encode for ${signature}: ${(err as Error).message.split('\n')[0]}`, { field: 'args' }, err);
    }
    const jsonArgs = fn.inputs.map((p, i) => toJsonSafe(p, values[i]));
    const blockRef = block === 'latest' ? 'latest' : block.toString();
    const key = this.cache.key('state', rpc.slug, blockRef, address.toLowerCase(), keccak256(data));
    const hit = await this.cache.get<ReadContractStateResult>(key);
    if (hit) return { ...hit, cached: true };

    let ret: Hex;
    let blockNumber: bigint;
    try {
      // Same tick ⇒ same aggregate3 ⇒ the block number is the block the call ran on.
      [ret, blockNumber] = await Promise.all([rpc.call(address, data, block), rpc.blockNumber(block)]);
    } catch (err) {
      if (err instanceof CallRevertedError) {
        const info = describeRevert(err.data, abi);
        throw chainError(CHAIN_ERROR_CODES.REVERTED, `${signature} reverted: ${info.reason}`, { revert: info }, err);
      }
      throw err;
    }
    if (ret === '0x' && fn.outputs.length > 0) {
      const code = await rpc.getCode(address, block);
      if (code === '0x') {
        throw chainError(CHAIN_ERROR_CODES.NOT_A_CONTRACT, `address: ${address} has no contract code on ${rpc.slug} (an externally owned account or an empty address)`, { field: 'address' });
      }
      throw chainError(CHAIN_ERROR_CODES.BAD_RESULT, `${signature} returned no data: the contract at ${address} does not implement it`, { field: 'function_name' });
    }
    let decoded: unknown;
    try {
      decoded = decodeFunctionResult({ abi: [fn], functionName: fn.name, data: ret });
    } catch (err) {
      throw chainError(CHAIN_ERROR_CODES.BAD_RESULT, `${signature} returned data that does not match its outputs (wrong ABI for this contract?)`, { data: ret.slice(0, 200) }, err);
    }
    const result: ReadContractStateResult = {
      chain: rpc.slug,
      address,
      function: signature,
      abi_source: source,
      args: jsonArgs,
      result: outputsToJson(fn.outputs, decoded),
      block_number: Number(blockNumber),
      cached: false,
    };
    await this.cache.set(key, result, block === 'latest' ? this.options.latestTtlSec : this.options.blockTtlSec);
    return result;
  }
}

function parseBlock(value: unknown): BlockRef {
  if (value === undefined || value === null || value === 'latest') return 'latest';
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  throw chainError(CHAIN_ERROR_CODES.BAD_INPUT, 'block_number: must be a non-negative integer or "latest"', { field: 'block_number' });
}
