import { decodeFunctionResult, encodeFunctionData, getAddress, type Address, type Hex } from 'viem';
import { AGGREGATOR_V3_ABI, ERC20_ABI, UNISWAP_V3_POOL_ABI } from '../abi/common-abis';
import type { ChainConfig } from '../chains/chain-config';
import { CHAIN_ERROR_CODES, chainError } from '../errors';
import type { BlockRef, ChainRpc } from '../rpc/chain-rpc';

/** Facts about a pool that never change. */
export interface PoolConstants {
  token0: Address;
  token1: Address;
  fee: number;
  tickSpacing: number;
  factory: Address;
}

/** Facts about a token that never change. */
export interface TokenMeta {
  symbol: string | null;
  name: string | null;
  decimals: number;
}

export const MULTICALL3_CLOCK_ABI = [
  { type: 'function', name: 'getBlockNumber', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256', name: '' }] },
  { type: 'function', name: 'getCurrentBlockTimestamp', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256', name: '' }] },
] as const;

export const enc = (fn: string, args: readonly unknown[] = []): Hex =>
  encodeFunctionData({ abi: [...UNISWAP_V3_POOL_ABI, ...ERC20_ABI, ...AGGREGATOR_V3_ABI], functionName: fn as 'token0', args: args as [] });

/** A batch of reads at one block, each settled on its own. */
export class ReadSet {
  private readonly reads = new Map<string, { to: Address; data: Hex; result?: PromiseSettledResult<Hex> }>();
  add(id: string, to: Address, data: Hex): void {
    if (!this.reads.has(id)) this.reads.set(id, { to, data });
  }
  async run(rpc: ChainRpc, block: BlockRef): Promise<void> {
    const entries = [...this.reads.values()].filter((r) => !r.result);
    // Issued in the same tick, so they join one aggregate3 (plus any concurrent panel's reads).
    const settled = await Promise.allSettled(entries.map((r) => rpc.call(r.to, r.data, block)));
    settled.forEach((s, i) => {
      entries[i]!.result = s;
    });
    // A dead RPC fails every read: surface that rather than "not a pool".
    for (const s of settled) {
      if (s.status === 'rejected' && (s.reason as { details?: { code?: string } })?.details?.code === CHAIN_ERROR_CODES.RPC_UNAVAILABLE)
        throw s.reason;
    }
  }
  ok(id: string): Hex | undefined {
    const r = this.reads.get(id)?.result;
    return r?.status === 'fulfilled' && r.value !== '0x' ? r.value : undefined;
  }
}

export function decode<T>(fn: string, data: Hex | undefined): T | undefined {
  if (!data) return undefined;
  try {
    return decodeFunctionResult({
      abi: [...UNISWAP_V3_POOL_ABI, ...ERC20_ABI, ...AGGREGATOR_V3_ABI],
      functionName: fn as 'token0',
      data,
    }) as T;
  } catch {
    return undefined;
  }
}

export function lower(a: string): string {
  return a.toLowerCase();
}

/** The pool's constants from round 1, checked to be a pool of the chain's canonical Uniswap V3 factory. */
export async function poolConstants(rpc: ChainRpc, pool: Address, r1: ReadSet, block: bigint): Promise<PoolConstants> {
  const token0 = decode<Address>('token0', r1.ok('token0'));
  const token1 = decode<Address>('token1', r1.ok('token1'));
  const fee = decode<number>('fee', r1.ok('fee'));
  const tickSpacing = decode<number>('tickSpacing', r1.ok('tickSpacing'));
  const factory = decode<Address>('factory', r1.ok('factory'));
  if (!token0 || !token1 || fee === undefined || tickSpacing === undefined || !factory || !r1.ok('slot0')) {
    const code = await rpc.getCode(pool, block);
    if (code === '0x') {
      throw chainError(
        CHAIN_ERROR_CODES.NOT_A_CONTRACT,
        `address: ${pool} has no contract code on ${rpc.slug} (an externally owned account or an empty address), so it is not a Uniswap V3 pool`,
        { field: 'address' },
      );
    }
    throw chainError(
      CHAIN_ERROR_CODES.NOT_A_POOL,
      `address: ${pool} is not a Uniswap V3 pool (it does not answer token0/token1/fee/tickSpacing/factory/slot0)`,
      { field: 'address' },
    );
  }
  const canonical = rpc.config.uniswapV3Factory;
  if (!canonical || lower(factory) !== lower(canonical)) {
    throw chainError(
      CHAIN_ERROR_CODES.NOT_A_POOL,
      `address: ${pool} looks like a V3 pool but its factory() is ${getAddress(factory)}, not the canonical Uniswap V3 factory on ${rpc.slug} (${canonical ?? 'none configured'})`,
      { field: 'address', factory: getAddress(factory) },
    );
  }
  return {
    token0: getAddress(token0),
    token1: getAddress(token1),
    fee: Number(fee),
    tickSpacing: Number(tickSpacing),
    factory: getAddress(factory),
  };
}

/** Adds token metadata (when not cached), balances and every pricing read to `rs`. */
export function planRound2(rs: ReadSet, cfg: ChainConfig, pool: Address, c: PoolConstants, meta: (TokenMeta | undefined)[]): void {
  [c.token0, c.token1].forEach((t, i) => {
    const l = lower(t);
    if (!meta[i]) {
      rs.add(`dec:${l}`, t, enc('decimals'));
      rs.add(`sym:${l}`, t, enc('symbol'));
      rs.add(`name:${l}`, t, enc('name'));
    }
    rs.add(`bal:${l}:${lower(pool)}`, t, enc('balanceOf', [pool]));
    planPrice(rs, cfg, t, true);
  });
}

function planPrice(rs: ReadSet, cfg: ChainConfig, token: Address, allowAnchor: boolean): void {
  const l = lower(token);
  if (cfg.stablecoins.some((s) => lower(s) === l)) return;
  const feed = cfg.feeds.find((f) => lower(f.token) === l);
  if (feed) {
    rs.add(`feed:${lower(feed.feed)}`, feed.feed, enc('latestRoundData'));
    rs.add(`feeddec:${lower(feed.feed)}`, feed.feed, enc('decimals'));
    return;
  }
  const anchor = allowAnchor ? cfg.anchorPools.find((a) => lower(a.token) === l) : undefined;
  if (anchor) {
    rs.add(`aslot0:${lower(anchor.pool)}`, anchor.pool, enc('slot0'));
    rs.add(`bal:${lower(anchor.quote)}:${lower(anchor.pool)}`, anchor.quote, enc('balanceOf', [anchor.pool]));
    rs.add(`dec:${lower(anchor.quote)}`, anchor.quote, enc('decimals'));
    rs.add(`dec:${l}`, token, enc('decimals'));
    planPrice(rs, cfg, anchor.quote, false);
  }
}
