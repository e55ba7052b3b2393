import { readFileSync } from 'node:fs';
import { decodeFunctionResult, encodeFunctionData, getAddress, keccak256, type Abi, type Address, type Hex } from 'viem';
import { ERC20_ABI, ERC721_ABI, UNISWAP_V3_POOL_ABI } from '../abi/common-abis';
import { decodeText } from '../abi/decode-text';
import { countAbi, type BytecodeAnalysis } from '../analysis/analyze-bytecode';
import type { AnalysisVia, BytecodeAnalysisQueue } from '../analysis/bytecode-analysis-queue';
import type { ChainCache } from '../cache/chain-cache';
import type { ChainRpc } from '../rpc/chain-rpc';
import type { ChainRegistry } from '../rpc/chain-registry';
import { parseAddress } from './parse-address';

/** keccak256('eip1967.proxy.implementation') - 1 */
const EIP1967_IMPLEMENTATION_SLOT: Hex = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
const EIP1167_RUNTIME = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/i;
const ERC721_INTERFACE_ID: Hex = '0x80ac58cd';

export type AdapterTag = 'uniswap_v3_pool' | 'erc20' | 'erc721' | 'unknown';

export interface ContractInfo {
  chain: string;
  address: string;
  kind: 'contract' | 'eoa';
  proxy: { standard: 'eip1967' | 'eip1167'; implementation: string } | null;
  name: string | null;
  symbol: string | null;
  adapter: AdapterTag;
  abi_source: 'registered' | 'adapter' | 'bytecode_analysis' | null;
  abi_label: string | null;
  counts: { functions: number; view_functions: number; write_functions: number; unclassified_functions?: number; events: number } | null;
  counts_note: string;
  code_size: number;
  code_hash: string | null;
  analysis_via?: AnalysisVia;
  block_number: number;
  cached: boolean;
}

export interface ContractInfoOptions {
  latestTtlSec: number;
}

let v3PoolAbi: Abi | undefined;
/** The full IUniswapV3Pool ABI from @uniswap/v3-core (loaded once, on first use). */
function uniswapV3PoolAbi(): Abi {
  v3PoolAbi ??= (JSON.parse(readFileSync(require.resolve('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'), 'utf8')) as { abi: Abi }).abi;
  return v3PoolAbi;
}

const probeAbi = [...ERC20_ABI, ...ERC721_ABI, ...UNISWAP_V3_POOL_ABI];
const call = (fn: string, args: readonly unknown[] = []): Hex => encodeFunctionData({ abi: probeAbi, functionName: fn as 'name', args: args as [] });
function decode<T>(fn: string, data: Hex | undefined): T | undefined {
  if (!data || data === '0x') return undefined;
  try {
    return decodeFunctionResult({ abi: probeAbi, functionName: fn as 'name', data }) as T;
  } catch {
    return undefined;
  }
}

/** get_contract_info: contract or EOA, proxies, name, adapter tag, interface counts. */
export class ContractInfoService {
  constructor(
    private readonly chains: ChainRegistry,
    private readonly cache: ChainCache,
    private readonly analysis: BytecodeAnalysisQueue,
    private readonly options: ContractInfoOptions,
  ) {}

  async info(input: { chain: unknown; address: unknown }): Promise<ContractInfo> {
    const rpc = this.chains.get(input.chain);
    const address = parseAddress(input.address);
    const key = this.cache.key('info', rpc.slug, 'latest', address.toLowerCase());
    const hit = await this.cache.get<ContractInfo>(key);
    if (hit) return { ...hit, cached: true };

    const probes = ['name', 'symbol', 'decimals', 'totalSupply', 'factory', 'token0'] as const;
    const blockP = rpc.blockNumber('latest');
    const [code, implSlot, results, ifaceResult, block] = await Promise.all([
      rpc.getCode(address),
      rpc.getStorageAt(address, EIP1967_IMPLEMENTATION_SLOT),
      Promise.allSettled(probes.map((fn) => rpc.call(address, call(fn)))),
      rpc.call(address, call('supportsInterface', [ERC721_INTERFACE_ID])).catch(() => undefined),
      blockP,
    ]);
    const ok = (i: number): Hex | undefined => {
      const r = results[i]!;
      return r.status === 'fulfilled' && r.value !== '0x' ? r.value : undefined;
    };
    if (code === '0x') {
      const info: ContractInfo = {
        chain: rpc.slug, address, kind: 'eoa', proxy: null, name: null, symbol: null, adapter: 'unknown',
        abi_source: null, abi_label: null, counts: null,
        counts_note: 'No contract code at this address: an externally owned account (or not deployed yet).',
        code_size: 0, code_hash: null, block_number: Number(block), cached: false,
      };
      await this.cache.set(key, info, this.options.latestTtlSec);
      return info;
    }

    let proxy: ContractInfo['proxy'] = null;
    const clone = EIP1167_RUNTIME.exec(code);
    if (clone) proxy = { standard: 'eip1167', implementation: getAddress(`0x${clone[1]}`) };
    else if (implSlot && BigInt(implSlot) !== 0n) proxy = { standard: 'eip1967', implementation: getAddress(`0x${implSlot.slice(-40)}`) };

    const factory = decode<Address>('factory', ok(4));
    const token0 = decode<Address>('token0', ok(5));
    const isErc721 = decode<boolean>('supportsInterface', ifaceResult) === true;
    const decimals = decode<number>('decimals', ok(2));
    const totalSupply = decode<bigint>('totalSupply', ok(3));
    let adapter: AdapterTag = 'unknown';
    const canonical = rpc.config.uniswapV3Factory;
    if (factory && token0 && canonical && factory.toLowerCase() === canonical.toLowerCase()) adapter = 'uniswap_v3_pool';
    else if (isErc721) adapter = 'erc721';
    else if (decimals !== undefined && totalSupply !== undefined) adapter = 'erc20';

    const analysed = proxy ? await rpc.getCode(proxy.implementation as Address) : code;
    const codeHash = keccak256(analysed);
    const counted = await this.counts(rpc, address, proxy?.implementation as Address | undefined, adapter, analysed, codeHash);
    const info: ContractInfo = {
      chain: rpc.slug,
      address,
      kind: 'contract',
      proxy,
      name: decodeText(ok(0)),
      symbol: decodeText(ok(1)),
      adapter,
      ...counted,
      code_size: (code.length - 2) / 2,
      code_hash: keccak256(code),
      block_number: Number(block),
      cached: false,
    };
    await this.cache.set(key, info, this.options.latestTtlSec);
    return info;
  }

  private async counts(
    rpc: ChainRpc,
    address: Address,
    implementation: Address | undefined,
    adapter: AdapterTag,
    code: Hex,
    codeHash: Hex,
  ): Promise<Pick<ContractInfo, 'abi_source' | 'abi_label' | 'counts' | 'counts_note' | 'analysis_via'>> {
    const registered = rpc.config.registeredAbis[address.toLowerCase()] ?? (implementation ? rpc.config.registeredAbis[implementation.toLowerCase()] : undefined);
    if (registered) {
      return { abi_source: 'registered', abi_label: registered.label, counts: countAbi(registered.abi), counts_note: `Counted from the ABI registered for this ${implementation ? 'proxy or its implementation' : 'address'}.` };
    }
    if (adapter === 'uniswap_v3_pool') {
      return { abi_source: 'adapter', abi_label: 'UniswapV3Pool (@uniswap/v3-core)', counts: countAbi(uniswapV3PoolAbi()), counts_note: 'Counted from the canonical Uniswap V3 pool ABI (the factory check proved this is one).' };
    }
    const { analysis, via } = await this.analysis.analyze(rpc.slug, implementation ?? address, code, codeHash);
    return {
      abi_source: 'bytecode_analysis',
      abi_label: null,
      counts: pickCounts(analysis),
      counts_note: `No ABI registered: selectors and event topics found in the ${implementation ? 'implementation' : 'contract'} bytecode (whatsabi). Bytecode does not say which functions are view; only selectors of known standard functions are classified, the rest are unclassified_functions.`,
      analysis_via: via,
    };
  }
}

function pickCounts(a: BytecodeAnalysis): NonNullable<ContractInfo['counts']> {
  return { functions: a.functions, view_functions: a.view_functions, write_functions: a.write_functions, unclassified_functions: a.unclassified_functions, events: a.events };
}
