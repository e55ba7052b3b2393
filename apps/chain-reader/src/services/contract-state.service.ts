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
  constructor(
    private readonly chains: ChainRegistry,
    private readonly cache: ChainCache,
    private readonly options: ContractStateOptions,
  ) {}

  async read(input: ReadContractStateInput): Promise<ReadContractStateResult> {
    const rpc = this.chains.get(input.chain);
    const address = parseAddress(input.address);
    const request = parseRequest(input);
    const { block, latest } = await resolveBlock(rpc, input.block_number);
    const { resolved, viaProxy, registered } = await resolveTarget(rpc, address, block, request);
    const { fn, abi, source } = resolved;
    const signature = functionSignature(fn);
    const { values, data } = encodeCall(fn, signature, input.args);
    const { sender, execution } = executionOf(rpc, signature, request.caller, registered);
    const jsonArgs = fn.inputs.map((p, i) => toJsonSafe(p, values[i]));
    const key = this.cache.key(
      'state',
      rpc.slug,
      block.toString(),
      address.toLowerCase(),
      keccak256(data),
      sender ? sender.toLowerCase() : 'mc3',
    );
    const hit = await this.cache.get<ReadContractStateResult>(key);
    if (hit) return { ...hit, cached: true };
    const decoded = await callAndDecode(rpc, { address, block, data, sender, fn, abi, signature });
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

type ChainRpcOf = ReturnType<ChainRegistry['get']>;
type RegisteredAbi = ChainRpcOf['config']['registeredAbis'][string];

/** The checked parts of the input that decide which function is called, and as whom. */
interface ReadRequest {
  functionName: string;
  caller: Address | undefined;
  argAbi: Abi | undefined;
  argCount: number;
}

function parseRequest(input: ReadContractStateInput): ReadRequest {
  if (typeof input.function_name !== 'string' || input.function_name.trim() === '') {
    throw chainError(CHAIN_ERROR_CODES.BAD_INPUT, 'function_name: required, a function name, "name(types)" or a human-readable signature', {
      field: 'function_name',
    });
  }
  const args = input.args;
  return {
    functionName: input.function_name,
    caller: input.caller === undefined || input.caller === null ? undefined : parseAddress(input.caller, 'caller'),
    argAbi: input.abi === undefined || input.abi === null ? undefined : parseAbiArgument(input.abi),
    argCount: Array.isArray(args) ? args.length : args && typeof args === 'object' ? Object.keys(args).length : 0,
  };
}

/**
 * The function to call, from the given ABI, the address's registered ABI or the common ones;
 * failing those, behind a proxy, the implementation's registered ABI (as get_contract_info does).
 * The proxy is detected only then, so plain reads pay nothing for it.
 */
async function resolveTarget(
  rpc: ChainRpcOf,
  address: Address,
  block: bigint,
  request: ReadRequest,
): Promise<{ resolved: ResolvedFunction; viaProxy?: ProxyInfo; registered?: RegisteredAbi }> {
  const registered = rpc.config.registeredAbis[address.toLowerCase()];
  try {
    return {
      resolved: resolveFunction(
        request.functionName,
        { argument: request.argAbi, registered: registered?.abi, common: COMMON_ABI },
        request.argCount,
      ),
      registered,
    };
  } catch (err) {
    if (chainErrorCode(err) !== CHAIN_ERROR_CODES.UNKNOWN_FUNCTION || request.argAbi || registered) throw err;
    const proxy = await detectProxy(rpc, address, block);
    const implAbi = proxy ? rpc.config.registeredAbis[proxy.implementation.toLowerCase()] : undefined;
    if (!proxy || !implAbi) throw err;
    return {
      resolved: resolveFunction(request.functionName, { registered: implAbi.abi, common: COMMON_ABI }, request.argCount),
      viaProxy: proxy,
      registered: implAbi,
    };
  }
}

/** The calldata of a view/pure call, refused for any other function and above one read's calldata limit. */
function encodeCall(fn: ResolvedFunction['fn'], signature: string, args: unknown): { values: unknown[]; data: Hex } {
  const legacyConstant = (fn as { constant?: boolean }).constant === true;
  if (fn.stateMutability !== 'view' && fn.stateMutability !== 'pure' && !legacyConstant) {
    throw chainError(
      CHAIN_ERROR_CODES.NOT_VIEW,
      `function_name: ${signature} is ${fn.stateMutability}, not view/pure; read_contract_state only reads state and never sends transactions`,
      { field: 'function_name', stateMutability: fn.stateMutability },
    );
  }
  const values = coerceArgs(fn.inputs, args, signature);
  let data: Hex;
  try {
    data = encodeFunctionData({ abi: [fn], functionName: fn.name, args: values });
  } catch (err) {
    throw chainError(
      CHAIN_ERROR_CODES.BAD_ARGUMENT,
      `args: cannot encode for ${signature}: ${(err as Error).message.split('\n')[0]}`,
      { field: 'args' },
      err,
    );
  }
  const bytes = (data.length - 2) / 2;
  if (bytes > MAX_CALLDATA_BYTES) {
    throw chainError(
      CHAIN_ERROR_CODES.CALLDATA_TOO_LARGE,
      `args: ${signature} encodes to ${bytes} bytes of calldata, more than the ${MAX_CALLDATA_BYTES}-byte limit of one read`,
      { field: 'args', bytes, limit: MAX_CALLDATA_BYTES },
    );
  }
  return { values, data };
}

/** Caller-sensitive (an explicit caller, or a function the registered ABI marks as such): a plain eth_call; else batched in Multicall3. */
function executionOf(
  rpc: ChainRpcOf,
  signature: string,
  caller: Address | undefined,
  registered: RegisteredAbi | undefined,
): { sender?: Address; execution: ReadContractStateResult['execution'] } {
  const marked = registered?.callerSensitive?.some((s) => s.replace(/\s+/g, '') === signature) === true;
  const sender: Address | undefined = caller ?? (marked ? ZERO_ADDRESS : undefined);
  if (!sender) {
    return {
      execution: {
        via: 'multicall3',
        msg_sender: rpc.config.multicall3,
        note: 'Batched inside Multicall3 aggregate3: msg.sender is Multicall3. Pass `caller` for functions that depend on msg.sender.',
      },
    };
  }
  const note = caller
    ? 'Plain eth_call with from = caller (not batched).'
    : `Plain eth_call from the zero address: the registered ABI marks ${signature} caller-sensitive.`;
  return { sender, execution: { via: 'eth_call', msg_sender: sender, note } };
}

interface PreparedCall {
  address: Address;
  block: bigint;
  data: Hex;
  sender?: Address;
  fn: ResolvedFunction['fn'];
  abi: Abi;
  signature: string;
}

/** Runs the call and decodes its outputs; a revert, an empty answer or undecodable data each get their own error. */
async function callAndDecode(rpc: ChainRpcOf, call: PreparedCall): Promise<unknown> {
  const { address, block, data, sender, fn, signature } = call;
  let ret: Hex;
  try {
    ret = await (sender ? rpc.callAs(sender, address, data, block) : rpc.call(address, data, block));
  } catch (err) {
    if (err instanceof CallRevertedError) {
      const info = describeRevert(err.data, call.abi);
      throw chainError(CHAIN_ERROR_CODES.REVERTED, `${signature} reverted: ${info.reason}`, { revert: info }, err);
    }
    throw err;
  }
  if (ret === '0x' && fn.outputs.length > 0) {
    const code = await rpc.getCode(address, block);
    if (code === '0x') {
      throw chainError(
        CHAIN_ERROR_CODES.NOT_A_CONTRACT,
        `address: ${address} has no contract code on ${rpc.slug} at block ${block} (an externally owned account or an empty address)`,
        { field: 'address' },
      );
    }
    throw chainError(CHAIN_ERROR_CODES.BAD_RESULT, `${signature} returned no data: the contract at ${address} does not implement it`, {
      field: 'function_name',
    });
  }
  try {
    return decodeFunctionResult({ abi: [fn], functionName: fn.name, data: ret });
  } catch (err) {
    throw chainError(
      CHAIN_ERROR_CODES.BAD_RESULT,
      `${signature} returned data that does not match its outputs (wrong ABI for this contract?)`,
      { data: ret.slice(0, 200) },
      err,
    );
  }
}
