import {
  BaseError,
  HttpRequestError,
  RawContractError,
  TimeoutError,
  createPublicClient,
  decodeFunctionResult,
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
import { AdaptiveBatcher } from './adaptive-batcher';
import { tracedRpcFetch } from './traced-rpc-fetch';

/** A block to read at: a concrete number, or the node's latest block. */
export type BlockRef = bigint | 'latest';

/** Raised by `ChainRpc.call` when the call itself reverted (with the raw revert data). */
export class CallRevertedError extends Error {
  override readonly name = 'CallRevertedError';
  constructor(
    readonly data: Hex,
    options?: { cause?: unknown },
  ) {
    super(`call reverted (${data === '0x' ? 'no data' : data.slice(0, 10)})`, options);
  }
}

const MULTICALL3_ABI = parseAbi([
  'function getBlockNumber() view returns (uint256)',
  'function getCurrentBlockTimestamp() view returns (uint256)',
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
]);
const GET_TIMESTAMP = encodeFunctionData({ abi: MULTICALL3_ABI, functionName: 'getCurrentBlockTimestamp' });
/** Most reads in one aggregate3, whatever their size (a bound on the response too). */
const MAX_BATCH_ITEMS = 1_000;

export interface ChainRpcOptions {
  /** Idle gap in ms: a Multicall3 batch is sent this long after the last read joined it. */
  wait: number;
  /** Upper bound in ms on one batch's window (from its first read); equal to `wait` = the old fixed window. */
  maxWait: number;
  /** Most calldata bytes per aggregate3; a full batch is sent at once. */
  batchSize: number;
  /** How long a fetched head block number is reused before asking the node again. */
  headTtlMs: number;
}

/** How a read was executed: inside Multicall3 (msg.sender is Multicall3) or as its own eth_call. */
export interface Execution {
  via: 'multicall3' | 'eth_call';
  /** The msg.sender the called function saw. */
  msg_sender: Address;
}

interface PendingRead {
  to: Address;
  data: Hex;
  resolve(v: Hex): void;
  reject(e: unknown): void;
}

/**
 * One chain's read path: reads coalesced into Multicall3 `aggregate3` batches (one batch per
 * block, `allowFailure` per call) by an AdaptiveBatcher, RPC endpoints tried in order with a
 * per-endpoint timeout, identical in-flight reads shared, and the head block number fetched once
 * per `headTtlMs` so every `latest` answer is pinned to (and cached under) a concrete block.
 */
export class ChainRpc {
  readonly client: PublicClient;
  private readonly inflight = new Map<string, Promise<Hex>>();
  private readonly batcher: AdaptiveBatcher<PendingRead>;
  private headValue: bigint | undefined;
  private headAt = 0;
  private headFlight: Promise<bigint> | undefined;

  constructor(
    readonly config: ChainConfig,
    private readonly options: ChainRpcOptions,
  ) {
    // tracedRpcFetch: a CLIENT span and RPC metrics (batch size, latency) per JSON-RPC request.
    const transports: Transport[] = config.rpcUrls.map((url) =>
      http(url, { timeout: config.rpcTimeoutMs, retryCount: 0, fetchFn: tracedRpcFetch(config.slug) }),
    );
    const transport = transports.length === 1 ? transports[0]! : fallback(transports, { retryCount: 0 });
    const chain = defineChain({
      id: config.chainId,
      name: config.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: config.rpcUrls } },
      contracts: { multicall3: { address: config.multicall3 } },
    });
    // No viem multicall batching: its window is fixed; ours adapts (AdaptiveBatcher).
    this.client = createPublicClient({ chain, transport });
    this.batcher = new AdaptiveBatcher<PendingRead>(
      { idleMs: options.wait, maxWaitMs: Math.max(options.wait, options.maxWait), maxBytes: options.batchSize, maxItems: MAX_BATCH_ITEMS },
      (key, items) => void this.sendBatch(key, items),
    );
  }

  get slug(): string {
    return this.config.slug;
  }

  /**
   * The node's head block number, reused for `headTtlMs` (one eth_blockNumber per interval,
   * shared by concurrent callers). Answers at `latest` are read at this block, so they are at
   * most `headTtlMs` behind the node.
   */
  head(options: { fresh?: boolean } = {}): Promise<bigint> {
    if (!options.fresh && this.headValue !== undefined && performance.now() - this.headAt < this.options.headTtlMs)
      return Promise.resolve(this.headValue);
    if (this.headFlight) return this.headFlight;
    const askedAt = performance.now();
    this.headFlight = this.client
      .getBlockNumber({ cacheTime: 0 })
      .then(
        (n) => {
          this.headValue = n;
          this.headAt = askedAt;
          return n;
        },
        (err: unknown) => {
          throw this.mapError(err);
        },
      )
      .finally(() => {
        this.headFlight = undefined;
      });
    return this.headFlight;
  }

  /**
   * `eth_call` of `data` on `to` at `block`, batched into an aggregate3. Resolves with the
   * return data ('0x' when the target has no code); rejects with CallRevertedError, or a
   * CR_RPC_UNAVAILABLE ToolError when no endpoint answered.
   */
  call(to: Address, data: Hex, block: BlockRef = 'latest'): Promise<Hex> {
    const key = `${block.toString()}|${to.toLowerCase()}|${data}`;
    const existing = this.inflight.get(key);
    if (existing) return existing;
    const p = new Promise<Hex>((resolve, reject) => {
      this.batcher.add(block.toString(), { to, data, resolve, reject }, (data.length - 2) / 2 + 32);
    }).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  /**
   * A plain `eth_call` (not batched) with `from` as msg.sender, for caller-sensitive reads.
   * Same results/rejections as `call`.
   */
  callAs(from: Address, to: Address, data: Hex, block: BlockRef = 'latest'): Promise<Hex> {
    const key = `${block.toString()}|${to.toLowerCase()}|${data}|from:${from.toLowerCase()}`;
    const existing = this.inflight.get(key);
    if (existing) return existing;
    const p = this.client
      .call({ account: from, to, data, ...(block === 'latest' ? {} : { blockNumber: block }) })
      .then(
        (r) => r.data ?? '0x',
        (err: unknown) => {
          throw this.mapError(err);
        },
      )
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  /** The block number `block` stands for: itself, or the (cached) head for `latest`. */
  async blockNumber(block: BlockRef = 'latest'): Promise<bigint> {
    return block === 'latest' ? this.head() : block;
  }

  /** The block timestamp (seconds), through Multicall3 in the same batch as other reads at `block`. */
  async blockTimestamp(block: BlockRef = 'latest'): Promise<bigint> {
    return BigInt(await this.call(this.config.multicall3, GET_TIMESTAMP, block));
  }

  private async sendBatch(blockKey: string, items: PendingRead[]): Promise<void> {
    const block: BlockRef = blockKey === 'latest' ? 'latest' : BigInt(blockKey);
    const at = block === 'latest' ? {} : { blockNumber: block };
    let ret: Hex;
    try {
      const data = encodeFunctionData({
        abi: MULTICALL3_ABI,
        functionName: 'aggregate3',
        args: [items.map((i) => ({ target: i.to, allowFailure: true, callData: i.data }))],
      });
      ret = (await this.client.call({ to: this.config.multicall3, data, ...at })).data ?? '0x';
    } catch (err) {
      const mapped = this.mapError(err);
      for (const i of items) i.reject(mapped);
      return;
    }
    if (ret === '0x') {
      // No Multicall3 at this block (older than its deployment): one plain eth_call each.
      await Promise.all(
        items.map((i) =>
          this.client.call({ to: i.to, data: i.data, ...at }).then(
            (r) => i.resolve(r.data ?? '0x'),
            (err: unknown) => i.reject(this.mapError(err)),
          ),
        ),
      );
      return;
    }
    let results: readonly { success: boolean; returnData: Hex }[];
    try {
      results = decodeFunctionResult({ abi: MULTICALL3_ABI, functionName: 'aggregate3', data: ret });
    } catch (err) {
      const e = chainError(
        CHAIN_ERROR_CODES.RPC_UNAVAILABLE,
        `chain "${this.slug}": Multicall3 at ${this.config.multicall3} answered aggregate3 with undecodable data`,
        { chain: this.slug },
        err,
      );
      for (const i of items) i.reject(e);
      return;
    }
    items.forEach((item, n) => {
      const r = results[n];
      if (!r)
        item.reject(
          chainError(
            CHAIN_ERROR_CODES.RPC_UNAVAILABLE,
            `chain "${this.slug}": aggregate3 returned ${results.length} results for ${items.length} calls`,
            { chain: this.slug },
          ),
        );
      else if (r.success) item.resolve(r.returnData);
      else item.reject(new CallRevertedError(r.returnData));
    });
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
    return chainError(
      CHAIN_ERROR_CODES.RPC_UNAVAILABLE,
      `chain "${this.slug}": RPC request failed: ${(err as Error).message?.split('\n')[0] ?? String(err)}`,
      { chain: this.slug },
      err,
    );
  }

  private looksLikeTransportFailure(err: BaseError): boolean {
    return /fetch failed|ECONNREFUSED|timed out|socket|network/i.test(`${err.shortMessage} ${err.details}`);
  }
}
