import { getAddress, type Address } from 'viem';
import type { ChainConfig } from '../chains/chain-config';
import { addRatio, compareRatio, fromUnits, mulRatio, ratio, ratioToNumber, type Ratio } from '../pricing/ratio';
import { price0Per1, price1Per0 } from '../pricing/sqrt-price';
import { decode, lower, type ReadSet } from './pool-reads';

/** A token's USD price and where it came from. */
export interface UsdPrice {
  usd: Ratio;
  source: 'stablecoin' | 'feed' | 'anchor_pool' | 'this_pool';
  note: string;
}

export function directPrice(cfg: ChainConfig, token: Address, rs: ReadSet, now: bigint): UsdPrice | undefined {
  const l = lower(token);
  if (cfg.stablecoins.some((s) => lower(s) === l))
    return { usd: ratio(1n), source: 'stablecoin', note: 'configured stablecoin, valued at $1' };
  const feed = cfg.feeds.find((f) => lower(f.token) === l);
  if (!feed) return undefined;
  const round = decode<readonly [bigint, bigint, bigint, bigint, bigint]>('latestRoundData', rs.ok(`feed:${lower(feed.feed)}`));
  const dec = decode<number>('decimals', rs.ok(`feeddec:${lower(feed.feed)}`));
  if (!round || dec === undefined) return undefined;
  const [, answer, , updatedAt] = round;
  if (answer <= 0n) return undefined;
  if (now > 0n && now - updatedAt > BigInt(feed.maxAgeSec)) return undefined;
  return {
    usd: fromUnits(answer, Number(dec)),
    source: 'feed',
    note: `Chainlink-style feed ${getAddress(feed.feed)} (updated ${new Date(Number(updatedAt) * 1000).toISOString()})`,
  };
}

export function anchorPrice(cfg: ChainConfig, token: Address, decimals: number, rs: ReadSet, now: bigint): UsdPrice | undefined {
  const anchor = cfg.anchorPools.find((a) => lower(a.token) === lower(token));
  if (!anchor) return undefined;
  const quoteUsd = directPrice(cfg, anchor.quote, rs, now);
  const slot0 = decode<readonly [bigint, number]>('slot0', rs.ok(`aslot0:${lower(anchor.pool)}`));
  const quoteBal = decode<bigint>('balanceOf', rs.ok(`bal:${lower(anchor.quote)}:${lower(anchor.pool)}`));
  const quoteDec = decode<number>('decimals', rs.ok(`dec:${lower(anchor.quote)}`));
  if (!quoteUsd || !slot0 || quoteBal === undefined || quoteDec === undefined) return undefined;
  const depth = mulRatio(fromUnits(quoteBal, Number(quoteDec)), quoteUsd.usd);
  if (compareRatio(depth, ratio(BigInt(Math.round(anchor.minDepthUsd)))) < 0) return undefined;
  const tokenIs0 = lower(token) < lower(anchor.quote);
  const inQuote = tokenIs0 ? price1Per0(slot0[0], decimals, Number(quoteDec)) : price0Per1(slot0[0], Number(quoteDec), decimals);
  return {
    usd: mulRatio(inQuote, quoteUsd.usd),
    source: 'anchor_pool',
    note: `routed through anchor pool ${getAddress(anchor.pool)} (quote side $${ratioToNumber(depth)} ≥ $${anchor.minDepthUsd}), quote priced by ${quoteUsd.source}`,
  };
}

/** One side of a pool being priced: its address, symbol, decimals and balance held by the pool (whole tokens). */
export interface PoolSide {
  token: Address;
  symbol: string;
  decimals: number;
  balance: Ratio;
  /** The price of this side in units of the other side, from this pool. */
  inOther: Ratio;
}

/**
 * USD prices of both sides: stablecoin, feed or anchor pool first; then an unpriced side is routed
 * through this pool when the other side is priced and the pool holds enough of it. `reasons`
 * says why a side stayed unpriced after routing was considered.
 */
export function priceSides(
  cfg: ChainConfig,
  sides: readonly [PoolSide, PoolSide],
  rs: ReadSet,
  now: bigint,
): { priced: (UsdPrice | undefined)[]; reasons: Map<number, string> } {
  const priced = sides.map((s) => directPrice(cfg, s.token, rs, now) ?? anchorPrice(cfg, s.token, s.decimals, rs, now));
  const reasons = new Map<number, string>();
  for (const [i, j] of [
    [0, 1],
    [1, 0],
  ] as const) {
    const other = priced[j];
    if (priced[i] || !other || other.source === 'this_pool') continue;
    const depth = mulRatio(sides[j].balance, other.usd);
    const sym = sides[i].symbol;
    if (compareRatio(depth, ratio(BigInt(Math.round(cfg.minRouteDepthUsd)))) >= 0) {
      priced[i] = {
        usd: mulRatio(sides[i].inOther, other.usd),
        source: 'this_pool',
        note: `${sym} priced through this pool against ${sides[j].symbol} (pool holds $${ratioToNumber(depth)} of it, minimum $${cfg.minRouteDepthUsd})`,
      };
    } else {
      priced[i] = undefined;
      reasons.set(
        i,
        `${sym}: no stablecoin/feed/anchor price, and this pool holds only $${ratioToNumber(depth)} of ${sides[j].symbol} (below the $${cfg.minRouteDepthUsd} minimum to route through it)`,
      );
    }
  }
  return { priced, reasons };
}

/** The pool's TVL when both sides are priced, else undefined, with a note saying which. */
export function tvlOf(
  sides: readonly [PoolSide, PoolSide],
  priced: (UsdPrice | undefined)[],
  reasons: Map<number, string>,
): { tvl?: Ratio; note: string } {
  const parts = priced.map((p, i) => (p ? mulRatio(sides[i]!.balance, p.usd) : undefined));
  if (parts[0] && parts[1]) {
    return {
      tvl: addRatio(parts[0], parts[1]),
      note: 'Sum of both token balances held by the pool × their USD prices (includes out-of-range liquidity and uncollected fees).',
    };
  }
  const missing = [0, 1]
    .filter((i) => !priced[i])
    .map(
      (i) =>
        reasons.get(i) ??
        `${sides[i]!.symbol}: no USD price (not a configured stablecoin, no feed, no anchor pool, and the other side of this pool is not priced either)`,
    );
  return { note: `TVL unknown: ${missing.join('; ')}` };
}
