import type { Abi, Address } from 'viem';

/** A Chainlink-style USD feed (AggregatorV3Interface) that prices one token. */
export interface FeedConfig {
  token: Address;
  feed: Address;
  /** Older answers are ignored (the feed's heartbeat plus slack). */
  maxAgeSec: number;
}

/**
 * A pool used to price `token` in `quote` (which must itself be a stablecoin or have a feed).
 * Ignored when the quote side of the pool holds less than `minDepthUsd`.
 */
export interface AnchorPoolConfig {
  token: Address;
  pool: Address;
  quote: Address;
  minDepthUsd: number;
}

/** An ABI registered for one address (what `get_contract_info` reports as `abi_source: registered`). */
export interface RegisteredAbi {
  label: string;
  abi: Abi;
  /**
   * Signatures (`name(types)`) of functions whose answer depends on msg.sender: they are sent
   * as a plain eth_call (from the `caller` argument, else the zero address), never inside Multicall3.
   */
  callerSensitive?: string[];
}

/** Everything the chain-reader knows about one chain; built from defaults + environment. */
export interface ChainConfig {
  slug: string;
  name: string;
  chainId: number;
  /** Tried in order; the next one serves when one errors or times out. Empty = not configured. */
  rpcUrls: string[];
  /** Per-endpoint request timeout in ms. */
  rpcTimeoutMs: number;
  multicall3: Address;
  /** The canonical Uniswap V3 factory; a pool is tagged `uniswap_v3_pool` only when `factory()` equals it. */
  uniswapV3Factory: Address | null;
  /** Priced at exactly $1. */
  stablecoins: Address[];
  feeds: FeedConfig[];
  anchorPools: AnchorPoolConfig[];
  /**
   * A token with no other price source is priced through the pool being read when the pool's
   * priced side holds at least this much USD (thin pools are easy to push around).
   */
  minRouteDepthUsd: number;
  /** ABIs known per address (lower-case address keys). */
  registeredAbis: Record<string, RegisteredAbi>;
}
