import { decodeFunctionResult, encodeFunctionData, keccak256, type Abi, type Address, type Hex } from 'viem';
import { COMMON_ABI } from '../abi/common-abis';
import { coerceArgs, MAX_CALLDATA_BYTES } from '../abi/coerce-args';
import { describeRevert } from '../abi/describe-revert';
import { functionSignature, parseAbiArgument, resolveFunction, type FunctionSource, type ResolvedFunction } from '../abi/resolve-function';
import { outputsToJson, toJsonSafe } from '../abi/to-json-safe';
import type { ChainCache } from '../cache/chain-cache';
import { CHAIN_ERROR_CODES, chainError, chainErrorCode } from '../errors';
import { CallRevertedError, type Execution } from '../rpc/chain-rpc';
import type { ChainRegistry } from '../rpc/chain-registry';
import { detectProxy, type ProxyInfo } from './detect-proxy';
import { parseAddress } from './parse-address';
import { resolveBlock } from './resolve-block';

/** Input of read_contract_state, as validated by the tool's schema. */
export interface ReadContractStateInput {
  chain: unknown;
  address: unknown;
  function_name: unknown;
  args?: unknown;
  abi?: unknown;
  block_number?: unknown;
  /** msg.sender for a caller-sensitive read: the call then goes as its own plain eth_call. */
  caller?: unknown;
}

export interface ReadContractStateResult {
  chain: string;
  address: string;
  function: string;
  abi_source: FunctionSource;
  /** Set when the ABI came from the implementation behind a proxy at `address`. */
  abi_via_proxy?: ProxyInfo;
  args: unknown[];
  result: unknown;
  /** How the call ran, and the msg.sender the function saw. */
  execution: Execution & { note: string };
  block_number: number;
  /** When this answer was read from the chain (kept on cache hits). */
  fetched_at: string;
  cached: boolean;
}

export interface ContractStateOptions {
  latestTtlSec: number;
  blockTtlSec: number;
}

const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';

/**
 * read_contract_state: one view call, batched through Multicall3 (or a plain eth_call for a
 * caller-sensitive read), cached by concrete block + calldata (+ caller).
 */
export class ContractStateService {
  constructor(private readonly chains: ChainRegistry, private readonly cache: ChainCache, private readonly options: ContractStateOptions) {}

  async read(input: ReadContractStateInput): Promise<ReadContractStateResult> {
    const rpc = this.chains.get(input.chain);
    const address = parseAddress(input.address);
    if (typeof input.function_name !== 'string' || input.function_name.trim() === '') {
      throw chainError(CHAIN_ERROR_CODES.BAD_INPUT, 'function_name: required, a function name, "name(types)" or a human-readable signature', { field: 'function_name' });
    }
    const caller = input.caller === undefined || input.caller === null ? undefined : parseAddress(input.caller, 'caller');
    const argAbi: Abi | undefined = input.abi === undefined || input.abi === null ? undefined : parseAbiArgument(input.abi);
    const argCount = Array.isArray(input.args) ? input.args.length : input.args && typeof input.args === 'object' ? Object.keys(input.args).length : 0;
    const { block, latest } = await resolveBlock(rpc, input.block_number);
    const registeredEntry = rpc.config.registeredAbis[address.toLowerCase()];
    let resolved: ResolvedFunction;
    let viaProxy: ProxyInfo | undefined;
    let registered = registeredEntry;
    try {
      resolved = resolveFunction(input.function_name, { argument: argAbi, registered: registeredEntry?.abi, common: COMMON_ABI }, argCount);
    } catch (err) {
      // Not in the address's own ABIs: behind a proxy, use the implementation's registered ABI
      // (as get_contract_info does). Detected only here, so plain reads pay nothing for it.
      if (chainErrorCode(err) !== CHAIN_ERROR_CODES.UNKNOWN_FUNCTION || argAbi || registeredEntry) throw err;
      const proxy = await detectProxy(rpc, address, block);
      const implAbi = proxy ? rpc.config.registeredAbis[proxy.implementation.toLowerCase()] : undefined;
      if (!proxy || !implAbi) throw err;
      resolved = resolveFunction(input.function_name, { registered: implAbi.abi, common: COMMON_ABI }, argCount);
      viaProxy = proxy;
      registered = implAbi;
    }
    const { fn, abi, source } = resolved;
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
    if ((data.length - 2) / 2 > MAX_CALLDATA_BYTES) {
      throw chainError(
        CHAIN_ERROR_CODES.CALLDATA_TOO_LARGE,
        `args: ${signature} encodes to ${(data.length - 2) / 2} bytes of calldata, more than the ${MAX_CALLDATA_BYTES}-byte limit of one read`,
        { field: 'args', bytes: (data.length - 2) / 2, limit: MAX_CALLDATA_BYTES },
      );
    }
    // Caller-sensitive: an explicit caller, or a function the registered ABI marks as such.
    const marked = registered?.callerSensitive?.some((s) => s.replace(/\s+/g, '') === signature) === true;
    const sender: Address | undefined = caller ?? (marked ? ZERO_ADDRESS : undefined);
    const execution: ReadContractStateResult['execution'] = sender
      ? { via: 'eth_call', msg_sender: sender, note: caller ? 'Plain eth_call with from = caller (not batched).' : `Plain eth_call from the zero address: the registered ABI marks ${signature} caller-sensitive.` }
      : { via: 'multicall3', msg_sender: rpc.config.multicall3, note: 'Batched inside Multicall3 aggregate3: msg.sender is Multicall3. Pass `caller` for functions that depend on msg.sender.' };

    const jsonArgs = fn.inputs.map((p, i) => toJsonSafe(p, values[i]));
    const key = this.cache.key('state', rpc.slug, block.toString(), address.toLowerCase(), keccak256(data), sender ? sender.toLowerCase() : 'mc3');
    const hit = await this.cache.get<ReadContractStateResult>(key);
    if (hit) return { ...hit, cached: true };

    let ret: Hex;
    try {
      ret = await (sender ? rpc.callAs(sender, address, data, block) : rpc.call(address, data, block));
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
        throw chainError(CHAIN_ERROR_CODES.NOT_A_CONTRACT, `address: ${address} has no contract code on ${rpc.slug} at block ${block} (an externally owned account or an empty address)`, { field: 'address' });
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
      ...(viaProxy ? { abi_via_proxy: viaProxy } : {}),
      args: jsonArgs,
      result: outputsToJson(fn.outputs, decoded),
      execution,
      block_number: Number(block),
      fetched_at: new Date().toISOString(),
      cached: false,
    };
    await this.cache.set(key, result, latest ? this.options.latestTtlSec : this.options.blockTtlSec);
    return result;
  }
}
