import { readFileSync } from 'node:fs';
import { decodeFunctionResult, encodeFunctionData, keccak256, type Abi, type Address, type Hex } from 'viem';
import { ERC20_ABI, ERC721_ABI, UNISWAP_V3_POOL_ABI } from '../abi/common-abis';
import { decodeText } from '../abi/decode-text';
import { countAbi, type BytecodeAnalysis } from '../analysis/analyze-bytecode';
import type { AnalysisVia, BytecodeAnalysisQueue } from '../analysis/bytecode-analysis-queue';
import type { ChainCache } from '../cache/chain-cache';
import type { ChainRpc } from '../rpc/chain-rpc';
import type { ChainRegistry } from '../rpc/chain-registry';
import { detectProxy, type ProxyInfo } from './detect-proxy';
import { parseAddress } from './parse-address';

const ERC721_INTERFACE_ID: Hex = '0x80ac58cd';

export type AdapterTag = 'uniswap_v3_pool' | 'erc20' | 'erc721' | 'unknown';

export interface ContractInfo {
  chain: string;
  address: string;
  kind: 'contract' | 'eoa';
  proxy: ProxyInfo | null;
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
  /** When this answer was read from the chain (kept on cache hits). */
  fetched_at: string;
  cached: boolean;
}

export interface ContractInfoOptions {
  latestTtlSec: number;
}

let v3PoolAbi: Abi | undefined;
/** The full IUniswapV3Pool ABI from @uniswap/v3-core (loaded once, on first use). */
function uniswapV3PoolAbi(): Abi {
  v3PoolAbi ??= (
    JSON.parse(readFileSync(require.resolve('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'), 'utf8')) as {
      abi: Abi;
    }
  ).abi;
  return v3PoolAbi;
}

const probeAbi = [...ERC20_ABI, ...ERC721_ABI, ...UNISWAP_V3_POOL_ABI];
const call = (fn: string, args: readonly unknown[] = []): Hex =>
  encodeFunctionData({ abi: probeAbi, functionName: fn as 'name', args: args as [] });
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
    const block = await rpc.head();
    const key = this.cache.key('info', rpc.slug, block.toString(), address.toLowerCase());
    const hit = await this.cache.get<ContractInfo>(key);
    if (hit) return { ...hit, cached: true };

    const probes = ['name', 'symbol', 'decimals', 'totalSupply', 'factory', 'token0'] as const;
    const code = await rpc.getCode(address, block);
    const [proxy, results, ifaceResult] = await Promise.all([
      code === '0x' ? Promise.resolve(null) : detectProxy(rpc, address, block, code),
      Promise.allSettled(probes.map((fn) => rpc.call(address, call(fn), block))),
      rpc.call(address, call('supportsInterface', [ERC721_INTERFACE_ID]), block).catch(() => undefined),
    ]);
    const ok = (i: number): Hex | undefined => {
      const r = results[i]!;
      return r.status === 'fulfilled' && r.value !== '0x' ? r.value : undefined;
    };
    if (code === '0x') {
      const info: ContractInfo = {
        chain: rpc.slug,
        address,
        kind: 'eoa',
        proxy: null,
        name: null,
        symbol: null,
        adapter: 'unknown',
        abi_source: null,
        abi_label: null,
        counts: null,
        counts_note: 'No contract code at this address: an externally owned account (or not deployed yet).',
        code_size: 0,
        code_hash: null,
        block_number: Number(block),
        fetched_at: new Date().toISOString(),
        cached: false,
      };
      await this.cache.set(key, info, this.options.latestTtlSec);
      return info;
    }

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

    const analysed = proxy ? await rpc.getCode(proxy.implementation as Address, block) : code;
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
      fetched_at: new Date().toISOString(),
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
    const registered =
      rpc.config.registeredAbis[address.toLowerCase()] ??
      (implementation ? rpc.config.registeredAbis[implementation.toLowerCase()] : undefined);
    if (registered) {
      return {
        abi_source: 'registered',
        abi_label: registered.label,
        counts: countAbi(registered.abi),
        counts_note: `Counted from the ABI registered for this ${implementation ? 'proxy or its implementation' : 'address'}.`,
      };
    }
    if (adapter === 'uniswap_v3_pool') {
      return {
        abi_source: 'adapter',
        abi_label: 'UniswapV3Pool (@uniswap/v3-core)',
        counts: countAbi(uniswapV3PoolAbi()),
        counts_note: 'Counted from the canonical Uniswap V3 pool ABI (the factory check proved this is one).',
      };
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
  return {
    functions: a.functions,
    view_functions: a.view_functions,
    write_functions: a.write_functions,
    unclassified_functions: a.unclassified_functions,
    events: a.events,
  };
}
