import { encodeFunctionData, getAddress, type Address } from 'viem';
import { decodeText } from '../abi/decode-text';
import type { ChainCache } from '../cache/chain-cache';
import { CHAIN_ERROR_CODES, chainError } from '../errors';
import { formatRatio, fromUnits, ratio, ratioToNumber } from '../pricing/ratio';
import { price0Per1, price1Per0 } from '../pricing/sqrt-price';
import type { ChainRpc } from '../rpc/chain-rpc';
import type { ChainRegistry } from '../rpc/chain-registry';
import { parseAddress } from './parse-address';
import { priceSides, tvlOf, type PoolSide, type UsdPrice } from './pool-pricing';
import {
  MULTICALL3_CLOCK_ABI,
  ReadSet,
  decode,
  enc,
  lower,
  planRound2,
  poolConstants,
  type PoolConstants,
  type TokenMeta,
} from './pool-reads';

export interface PoolTokenInfo {
  address: string;
  symbol: string | null;
  name: string | null;
  decimals: number;
  /** Raw balance held by the pool (base units). */
  pool_balance: string;
  /** The same in whole tokens. */
  pool_balance_formatted: string;
  usd_price: string | null;
  price_source: 'stablecoin' | 'feed' | 'anchor_pool' | 'this_pool' | null;
  price_note: string;
}

export interface UniswapV3PoolPanel {
  chain: string;
  address: string;
  protocol: 'uniswap_v3';
  pair: string;
  fee: number;
  fee_tier_percent: string;
  tick_spacing: number;
  tick: number;
  sqrt_price_x96: string;
  liquidity: string;
  liquidity_note: string;
  price: {
    token1_per_token0: string;
    token0_per_token1: string;
    summary: string;
  };
  token0: PoolTokenInfo;
  token1: PoolTokenInfo;
  tvl_usd: number | null;
  /** TVL with full precision (decimal string), null when tvl_usd is. */
  tvl_usd_exact: string | null;
  tvl_note: string;
  block_number: number;
  fetched_at: string;
  price_observed_at: string;
  cached: boolean;
}

export interface UniswapV3PoolOptions {
  panelTtlSec: number;
  immutableTtlSec: number;
}

const LIQUIDITY_NOTE =
  'Active in-range liquidity L of the current tick (sqrt(x·y) in raw units): how deep the price is right now, not a token amount and not TVL.';

/**
 * get_uniswap_v3_pool: a pool panel in at most two eth_calls (pool state + constants, then
 * token data + pricing anchors, both at one block), zero when cached. USD pricing order:
 * stablecoin $1 → Chainlink-style feed → configured anchor pool with minimum depth → this
 * pool against a priced side with minimum depth → none (tvl_usd null, with the reason).
 */
export class UniswapV3PoolService {
  private readonly inflight = new Map<string, Promise<UniswapV3PoolPanel>>();

  constructor(
    private readonly chains: ChainRegistry,
    private readonly cache: ChainCache,
    private readonly options: UniswapV3PoolOptions,
  ) {}

  async panel(input: { chain: unknown; address: unknown }): Promise<UniswapV3PoolPanel> {
    const rpc = this.chains.get(input.chain);
    const address = parseAddress(input.address);
    // Keyed by the concrete head block, like every chain-reader answer: a new block is a new key.
    const block = await rpc.head();
    const key = this.cache.key('pool', rpc.slug, block.toString(), lower(address));
    const hit = await this.cache.get<UniswapV3PoolPanel>(key);
    if (hit) return { ...hit, cached: true };
    const flightKey = `${rpc.slug}|${block}|${lower(address)}`;
    const existing = this.inflight.get(flightKey);
    if (existing) return existing;
    const p = this.build(rpc, address, block)
      .then(async (panel) => {
        await this.cache.set(key, panel, this.options.panelTtlSec);
        return panel;
      })
      .finally(() => this.inflight.delete(flightKey));
    this.inflight.set(flightKey, p);
    return p;
  }

  /** Both rounds of reads at `block`, with the pool's constants (read in round 1 when not cached). */
  private async readPool(rpc: ChainRpc, pool: Address, block: bigint): Promise<PoolReads> {
    const cfg = rpc.config;
    const constKey = this.cache.key('imm', rpc.slug, 'v3pool', lower(pool));
    let constants = await this.cache.get<PoolConstants>(constKey);
    // Round 1: live pool state + block timestamp, and the constants when not cached.
    const r1 = new ReadSet();
    r1.add('slot0', pool, enc('slot0'));
    r1.add('liquidity', pool, enc('liquidity'));
    r1.add('timestamp', cfg.multicall3, encodeFunctionData({ abi: MULTICALL3_CLOCK_ABI, functionName: 'getCurrentBlockTimestamp' }));
    if (!constants) {
      for (const fn of ['token0', 'token1', 'fee', 'tickSpacing', 'factory']) r1.add(fn, pool, enc(fn));
    }
    // With constants known, the token/pricing reads need no second round.
    const oneRound = constants !== undefined;
    let tokenMeta: (TokenMeta | undefined)[] = [];
    let r2 = r1;
    if (constants) {
      tokenMeta = await this.cachedTokenMeta(rpc, constants);
      planRound2(r1, cfg, pool, constants, tokenMeta);
    }
    await r1.run(rpc, block);
    if (!constants) {
      constants = await poolConstants(rpc, pool, r1, block);
      await this.cache.set(constKey, constants, this.options.immutableTtlSec);
    }
    refuseUninitialised(pool, constants, r1);
    if (!oneRound) {
      tokenMeta = await this.cachedTokenMeta(rpc, constants);
      r2 = new ReadSet();
      planRound2(r2, cfg, pool, constants, tokenMeta);
      // Round 2 at the same block as round 1, so the whole panel is one consistent state.
      await r2.run(rpc, block);
    }
    return { constants, r1, r2, tokenMeta };
  }

  private cachedTokenMeta(rpc: ChainRpc, c: PoolConstants): Promise<(TokenMeta | undefined)[]> {
    return this.cache.mget<TokenMeta>([c.token0, c.token1].map((t) => this.cache.key('imm', rpc.slug, 'token', lower(t))));
  }

  /** Each token's metadata: cached, or read in round 2 and cached for good. */
  private async tokenMetas(rpc: ChainRpc, reads: PoolReads): Promise<[TokenMeta, TokenMeta]> {
    const metas: TokenMeta[] = [];
    for (const [i, t] of [reads.constants.token0, reads.constants.token1].entries()) {
      let meta = reads.tokenMeta[i];
      if (!meta) {
        const decimals = decode<number>('decimals', reads.r2.ok(`dec:${lower(t)}`));
        if (decimals === undefined)
          throw chainError(CHAIN_ERROR_CODES.BAD_RESULT, `token${i} ${t} has no decimals(); cannot price this pool`, { token: t });
        meta = {
          decimals: Number(decimals),
          symbol: decodeText(reads.r2.ok(`sym:${lower(t)}`)),
          name: decodeText(reads.r2.ok(`name:${lower(t)}`)),
        };
        await this.cache.set(this.cache.key('imm', rpc.slug, 'token', lower(t)), meta, this.options.immutableTtlSec);
      }
      metas.push(meta);
    }
    return metas as [TokenMeta, TokenMeta];
  }

  private async build(rpc: ChainRpc, pool: Address, block: bigint): Promise<UniswapV3PoolPanel> {
    const reads = await this.readPool(rpc, pool, block);
    const slot0 = decode<readonly [bigint, number]>('slot0', reads.r1.ok('slot0'));
    const liquidity = decode<bigint>('liquidity', reads.r1.ok('liquidity'));
    if (!slot0 || liquidity === undefined)
      throw chainError(CHAIN_ERROR_CODES.NOT_A_POOL, `address: ${pool} did not answer slot0()/liquidity() like a Uniswap V3 pool`, {
        field: 'address',
      });
    const metas = await this.tokenMetas(rpc, reads);
    return panelOf(rpc, pool, block, reads, metas, { sqrtPriceX96: slot0[0], tick: slot0[1], liquidity });
  }
}

/** What the two rounds read: round 2 is round 1 when the constants were cached. */
interface PoolReads {
  constants: PoolConstants;
  r1: ReadSet;
  r2: ReadSet;
  /** Token metadata found in the cache before the reads (undefined where it was read in round 2). */
  tokenMeta: (TokenMeta | undefined)[];
}

/** createPool without initialize(): anyone can make one, and it has no price to show. */
function refuseUninitialised(pool: Address, constants: PoolConstants, r1: ReadSet): void {
  const slot0 = decode<readonly [bigint, number]>('slot0', r1.ok('slot0'));
  if (!slot0 || slot0[0] !== 0n) return;
  throw chainError(
    CHAIN_ERROR_CODES.POOL_NOT_INITIALIZED,
    `address: ${pool} is a Uniswap V3 pool (factory ${constants.factory}, fee ${constants.fee}) but it is not initialised: slot0.sqrtPriceX96 is 0, so it has no price yet (initialize() was never called)`,
    { field: 'address', token0: constants.token0, token1: constants.token1, fee: constants.fee },
  );
}

/** The panel of a pool from its reads: prices both ways, each side's USD price and the TVL. */
function panelOf(
  rpc: ChainRpc,
  pool: Address,
  block: bigint,
  reads: PoolReads,
  metas: [TokenMeta, TokenMeta],
  state: { sqrtPriceX96: bigint; tick: number; liquidity: bigint },
): UniswapV3PoolPanel {
  const { constants, r1, r2 } = reads;
  const [m0, m1] = metas;
  const timestamp = BigInt(r1.ok('timestamp') ?? '0x0');
  const raw = [constants.token0, constants.token1].map((t) => decode<bigint>('balanceOf', r2.ok(`bal:${lower(t)}:${lower(pool)}`)) ?? 0n);
  const p1per0 = price1Per0(state.sqrtPriceX96, m0.decimals, m1.decimals);
  const p0per1 = price0Per1(state.sqrtPriceX96, m0.decimals, m1.decimals);
  const side = (i: 0 | 1): PoolSide => {
    const token = i === 0 ? constants.token0 : constants.token1;
    const m = metas[i];
    return {
      token,
      symbol: m.symbol ?? short(token),
      decimals: m.decimals,
      balance: fromUnits(raw[i]!, m.decimals),
      inOther: i === 0 ? p1per0 : p0per1,
    };
  };
  const sides = [side(0), side(1)] as const;
  const { priced, reasons } = priceSides(rpc.config, sides, r2, timestamp);
  const { tvl, note } = tvlOf(sides, priced, reasons);
  const [sym0, sym1] = [sides[0].symbol, sides[1].symbol];
  return {
    chain: rpc.slug,
    address: pool,
    protocol: 'uniswap_v3',
    pair: `${sym0}/${sym1}`,
    fee: constants.fee,
    fee_tier_percent: formatRatio(ratio(BigInt(constants.fee), 10_000n)),
    tick_spacing: constants.tickSpacing,
    tick: Number(state.tick),
    sqrt_price_x96: state.sqrtPriceX96.toString(),
    liquidity: state.liquidity.toString(),
    liquidity_note: LIQUIDITY_NOTE,
    price: {
      token1_per_token0: formatRatio(p1per0),
      token0_per_token1: formatRatio(p0per1),
      summary: `1 ${sym0} = ${formatRatio(p1per0, 8)} ${sym1}; 1 ${sym1} = ${formatRatio(p0per1, 8)} ${sym0}`,
    },
    token0: tokenInfo(sides[0], metas[0], raw[0]!, priced[0]),
    token1: tokenInfo(sides[1], metas[1], raw[1]!, priced[1]),
    tvl_usd: tvl ? ratioToNumber(tvl) : null,
    tvl_usd_exact: tvl ? formatRatio(tvl, 24) : null,
    tvl_note: note,
    block_number: Number(block),
    fetched_at: new Date().toISOString(),
    price_observed_at: new Date(Number(timestamp) * 1000).toISOString(),
    cached: false,
  };
}

function tokenInfo(side: PoolSide, meta: TokenMeta, raw: bigint, price: UsdPrice | undefined): PoolTokenInfo {
  return {
    address: getAddress(side.token),
    symbol: meta.symbol,
    name: meta.name,
    decimals: meta.decimals,
    pool_balance: raw.toString(),
    pool_balance_formatted: formatRatio(side.balance, 30),
    usd_price: price ? formatRatio(price.usd) : null,
    price_source: price?.source ?? null,
    price_note: price?.note ?? 'no USD price',
  };
}

function short(a: string): string {
  return `${a.slice(0, 6)}…${a.slice(-4)}`;
}
