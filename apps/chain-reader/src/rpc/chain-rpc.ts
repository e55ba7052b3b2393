import {
  BaseError,
  HttpRequestError,
  RawContractError,
  TimeoutError,
  createPublicClient,
  defineChain,
  encodeFunctionData,
  fallback,
  http,
  keccak256,
  parseAbi,
  type Address,
  type Hex,
  type PublicClient,
  type Transport,
} from 'viem';
import type { ChainConfig } from '../chains/chain-config';
import { CHAIN_ERROR_CODES, chainError } from '../errors';
import { tracedRpcFetch } from './traced-rpc-fetch';

/** A block to read at: a concrete number, or the node's latest block. */
export type BlockRef = bigint | 'latest';

/** Raised by `ChainRpc.call` when the call itself reverted (with the raw revert data). */
export class CallRevertedError extends Error {
  override readonly name = 'CallRevertedError';
  constructor(readonly data: Hex, options?: { cause?: unknown }) {
    super(`call reverted (${data === '0x' ? 'no data' : data.slice(0, 10)})`, options);
  }
}

const MULTICALL3_ABI = parseAbi([
  'function getBlockNumber() view returns (uint256)',
  'function getCurrentBlockTimestamp() view returns (uint256)',
]);
const GET_BLOCK_NUMBER = encodeFunctionData({ abi: MULTICALL3_ABI, functionName: 'getBlockNumber' });
const GET_TIMESTAMP = encodeFunctionData({ abi: MULTICALL3_ABI, functionName: 'getCurrentBlockTimestamp' });

export interface ChainRpcOptions {
  /** ms a Multicall3 batch waits for more reads. */
  wait: number;
  /** Most calldata bytes per aggregate3. */
  batchSize: number;
}

/**
 * One chain's read path: a viem client whose `eth_call`s are coalesced into Multicall3
 * `aggregate3` batches (one batch per block parameter, `allowFailure` per call), RPC
 * endpoints tried in order with a per-endpoint timeout, and identical in-flight reads shared.
 */
export class ChainRpc {
  readonly client: PublicClient;
  private readonly inflight = new Map<string, Promise<Hex>>();

  constructor(readonly config: ChainConfig, options: ChainRpcOptions) {
    // tracedRpcFetch: a CLIENT span and RPC metrics (batch size, latency) per JSON-RPC request.
    const transports: Transport[] = config.rpcUrls.map((url) => http(url, { timeout: config.rpcTimeoutMs, retryCount: 0, fetchFn: tracedRpcFetch(config.slug) }));
    const transport = transports.length === 1 ? transports[0]! : fallback(transports, { retryCount: 0 });
    const chain = defineChain({
      id: config.chainId,
      name: config.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: config.rpcUrls } },
      contracts: { multicall3: { address: config.multicall3 } },
    });
    this.client = createPublicClient({
      chain,
      transport,
      batch: { multicall: { batchSize: options.batchSize, wait: options.wait } },
    });
  }

  get slug(): string {
    return this.config.slug;
  }

  /**
   * `eth_call` of `data` on `to` at `block`, batched. Resolves with the return data ('0x' when
   * the target has no code); rejects with CallRevertedError, or a CR_RPC_UNAVAILABLE ToolError
   * when no endpoint answered.
   */
  call(to: Address, data: Hex, block: BlockRef = 'latest'): Promise<Hex> {
    const key = `${block.toString()}|${to.toLowerCase()}|${data}`;
    const existing = this.inflight.get(key);
    if (existing) return existing;
    const p = this.client
      .call({ to, data, ...(block === 'latest' ? {} : { blockNumber: block }) })
      .then((r) => r.data ?? '0x', (err: unknown) => { throw this.mapError(err); })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  /** The block number, read through Multicall3 inside the same batch as other `latest` reads. */
  async blockNumber(block: BlockRef = 'latest'): Promise<bigint> {
    if (block !== 'latest') return block;
    return BigInt(await this.call(this.config.multicall3, GET_BLOCK_NUMBER, 'latest'));
  }

  /** The block timestamp (seconds), through Multicall3 like blockNumber. */
  async blockTimestamp(block: BlockRef = 'latest'): Promise<bigint> {
    return BigInt(await this.call(this.config.multicall3, GET_TIMESTAMP, block));
  }

  async getCode(address: Address, block: BlockRef = 'latest'): Promise<Hex> {
    try {
      const code = await this.client.getCode({ address, ...(block === 'latest' ? {} : { blockNumber: block }) });
      return code ?? '0x';
    } catch (err) {
      throw this.mapError(err);
    }
  }

  async getStorageAt(address: Address, slot: Hex, block: BlockRef = 'latest'): Promise<Hex> {
    try {
      const v = await this.client.getStorageAt({ address, slot, ...(block === 'latest' ? {} : { blockNumber: block }) });
      return v ?? '0x';
    } catch (err) {
      throw this.mapError(err);
    }
  }

  /** keccak256 of code, the identity of a bytecode analysis. */
  static codeHash(code: Hex): Hex {
    return keccak256(code);
  }

  private mapError(err: unknown): Error {
    if (err instanceof BaseError) {
      const raw = err.walk((e) => e instanceof RawContractError);
      if (raw instanceof RawContractError) {
        const data = typeof raw.data === 'string' ? raw.data : (raw.data?.data ?? '0x');
        return new CallRevertedError(data, { cause: err });
      }
      const transport = err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError);
      if (transport || this.looksLikeTransportFailure(err)) {
        return chainError(
          CHAIN_ERROR_CODES.RPC_UNAVAILABLE,
          `chain "${this.slug}": no RPC endpoint answered (${this.config.rpcUrls.length} tried): ${err.shortMessage}`,
          { chain: this.slug, endpoints: this.config.rpcUrls.length },
          err,
        );
      }
      const msg = err.details || err.shortMessage;
      if (/revert/i.test(msg)) return new CallRevertedError('0x', { cause: err });
    }
    return chainError(CHAIN_ERROR_CODES.RPC_UNAVAILABLE, `chain "${this.slug}": RPC request failed: ${(err as Error).message?.split('\n')[0] ?? String(err)}`, { chain: this.slug }, err);
  }

  private looksLikeTransportFailure(err: BaseError): boolean {
    return /fetch failed|ECONNREFUSED|timed out|socket|network/i.test(`${err.shortMessage} ${err.details}`);
  }
}
