import { createPublicClient, http, parseAbi, type Address } from 'viem';
import { ToolError } from '@switchboard/catalog';
import { devnetChain } from '../chains/devnet-chain';
import type { ChainRuntime } from '../chain-runtime';
import { startCountingProxy, type CountingProxy } from '../devnet/counting-proxy';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { testRuntime } from '../testing/test-runtime';

const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const poolAbi = parseAbi(['function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)']);

function relErr(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.abs(expected);
}

describe('UniswapV3PoolService on the devnet', () => {
  let devnet: Devnet;
  let proxy: CountingProxy;
  let rt: ChainRuntime;
  const runtimes: ChainRuntime[] = [];
  let plain: ReturnType<typeof createPublicClient>;

  const fresh = (): ChainRuntime => {
    const r = testRuntime({ devnet: devnetChain(devnet, [proxy.url]) });
    runtimes.push(r);
    return r;
  };
  const balance = async (token: Address, owner: Address): Promise<number> =>
    Number(await plain.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [owner] }));

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    proxy = await startCountingProxy(devnet.rpcUrl);
    plain = createPublicClient({ transport: http(devnet.rpcUrl) });
    rt = fresh();
    await rt.cache.waitReady(2_000);
  });
  afterAll(async () => {
    for (const r of runtimes) await r.close({ purge: true });
    await proxy?.close();
    await devnet?.stop();
  });

  it('prices dWETH/dUSDC after the seeded swap as constant-product math on the seeded amounts predicts', async () => {
    const { pools, weth, usdc } = devnet.addresses;
    const panel = await rt.pools.panel({ chain: 'devnet', address: pools.wethUsdc.address });
    // Seeded: 100 dWETH + 300,000 dUSDC full range, then 1 dWETH in with a 0.3% fee.
    const x = 100 + 0.997;
    const y = (100 * 300_000) / x;
    const expectedUsdcPerWeth = y / x;
    const wethIs0 = panel.token0.address === weth;
    const usdcPerWeth = Number(wethIs0 ? panel.price.token1_per_token0 : panel.price.token0_per_token1);
    const wethPerUsdc = Number(wethIs0 ? panel.price.token0_per_token1 : panel.price.token1_per_token0);
    expect(relErr(usdcPerWeth, expectedUsdcPerWeth)).toBeLessThan(1e-6);
    expect(relErr(wethPerUsdc, 1 / expectedUsdcPerWeth)).toBeLessThan(1e-6);
    expect(panel.pair).toBe(wethIs0 ? 'dWETH/dUSDC' : 'dUSDC/dWETH');
    expect(panel.fee_tier_percent).toBe('0.3');
    expect(panel.tick_spacing).toBe(60);
    // tick is floor(log_1.0001(raw price))
    const raw = (Number(BigInt(panel.sqrt_price_x96)) / 2 ** 96) ** 2;
    expect(panel.tick).toBe(Math.floor(Math.log(raw) / Math.log(1.0001)));
    expect(panel.liquidity).toMatch(/^\d+$/);
    expect(panel.liquidity_note).toMatch(/not .*TVL/);

    // TVL = balances × anchor prices ($1 stablecoin, $3000 feed), balances read independently.
    const wethBal = (await balance(weth, pools.wethUsdc.address)) / 1e18;
    const usdcBal = (await balance(usdc, pools.wethUsdc.address)) / 1e6;
    expect(panel.tvl_usd).not.toBeNull();
    expect(relErr(Number(panel.tvl_usd_exact), wethBal * 3000 + usdcBal)).toBeLessThan(1e-12);
    expect(Math.abs(panel.tvl_usd! - (wethBal * 3000 + usdcBal))).toBeLessThan(0.01);
    const wethInfo = wethIs0 ? panel.token0 : panel.token1;
    const usdcInfo = wethIs0 ? panel.token1 : panel.token0;
    expect(wethInfo.price_source).toBe('feed');
    expect(wethInfo.usd_price).toBe('3000');
    expect(usdcInfo.price_source).toBe('stablecoin');
    expect(usdcInfo.decimals).toBe(6);
    expect(panel.block_number).toBeGreaterThan(0);
    expect(Date.parse(panel.price_observed_at)).toBeGreaterThan(0);
    expect(Date.parse(panel.fetched_at)).toBeGreaterThan(0);
    expect(panel.cached).toBe(false);
  });

  it('prices dTKN through the configured anchor pool and values TVL with it', async () => {
    const { pools, tkn, weth } = devnet.addresses;
    const panel = await rt.pools.panel({ chain: 'devnet', address: pools.tknWeth.address });
    const tknIs0 = panel.token0.address === tkn;
    // Seeded at exactly 0.01 dWETH per dTKN and never swapped.
    const wethPerTkn = Number(tknIs0 ? panel.price.token1_per_token0 : panel.price.token0_per_token1);
    expect(relErr(wethPerTkn, 0.01)).toBeLessThan(1e-12);
    const tknInfo = tknIs0 ? panel.token0 : panel.token1;
    expect(tknInfo.price_source).toBe('anchor_pool');
    expect(relErr(Number(tknInfo.usd_price), 30)).toBeLessThan(1e-9);
    const tknBal = (await balance(tkn, pools.tknWeth.address)) / 1e18;
    const wethBal = (await balance(weth, pools.tknWeth.address)) / 1e18;
    expect(relErr(Number(panel.tvl_usd_exact), tknBal * 30 + wethBal * 3000)).toBeLessThan(1e-12);
  });

  it('reads a bytes32 symbol and routes its price through the pool when the priced side is deep enough', async () => {
    const { pools, b32, usdc } = devnet.addresses;
    const panel = await rt.pools.panel({ chain: 'devnet', address: pools.b32Usdc.address });
    const b32Is0 = panel.token0.address === b32;
    const b32Info = b32Is0 ? panel.token0 : panel.token1;
    expect(b32Info.symbol).toBe('dB32');
    expect(b32Info.name).toBe('Dev Bytes32 Token');
    expect(panel.fee_tier_percent).toBe('0.05');
    expect(b32Info.price_source).toBe('this_pool');
    expect(relErr(Number(b32Info.usd_price), 2)).toBeLessThan(1e-12);
    const b32Bal = (await balance(b32, pools.b32Usdc.address)) / 1e18;
    const usdcBal = (await balance(usdc, pools.b32Usdc.address)) / 1e6;
    expect(relErr(Number(panel.tvl_usd_exact), b32Bal * 2 + usdcBal)).toBeLessThan(1e-12);
  });

  it('answers tvl_usd: null with the reason when no side has a price', async () => {
    const panel = await rt.pools.panel({ chain: 'devnet', address: devnet.addresses.pools.nopB32.address });
    expect(panel.tvl_usd).toBeNull();
    expect(panel.tvl_usd_exact).toBeNull();
    expect(panel.tvl_note).toMatch(/TVL unknown: .*dNOP.*no USD price/);
    expect(panel.token0.usd_price).toBeNull();
  });

  it('costs at most 2 eth_calls (+ 1 head eth_blockNumber) cold and no eth_call warm', async () => {
    const r = fresh();
    await r.cache.waitReady(2_000);
    proxy.reset();
    const cold = await r.pools.panel({ chain: 'devnet', address: devnet.addresses.pools.wethUsdc.address });
    expect(proxy.count('eth_call')).toBeLessThanOrEqual(2);
    expect(proxy.count('eth_blockNumber')).toBeLessThanOrEqual(1);
    expect(proxy.total()).toBe(proxy.count('eth_call') + proxy.count('eth_blockNumber'));
    proxy.reset();
    const warm = await r.pools.panel({ chain: 'devnet', address: devnet.addresses.pools.wethUsdc.address });
    // Only the head may be asked again (when its 200 ms TTL ran out); the panel itself is cached.
    expect(proxy.total()).toBe(proxy.count('eth_blockNumber'));
    expect(proxy.count('eth_blockNumber')).toBeLessThanOrEqual(1);
    expect(warm.cached).toBe(true);
    expect(warm.price).toEqual(cold.price);
  });

  it('lets concurrent panels share eth_calls', async () => {
    const r = fresh();
    await r.cache.waitReady(2_000);
    proxy.reset();
    const all = Object.values(devnet.addresses.pools).map((p) => p.address);
    const panels = await Promise.all([...all, ...all].map((address) => r.pools.panel({ chain: 'devnet', address })));
    expect(panels).toHaveLength(8);
    expect(new Set(panels.map((p) => p.block_number)).size).toBe(1);
    expect(proxy.count('eth_call')).toBeLessThanOrEqual(2);
  });

  it('matches the raw slot0 the pool reports', async () => {
    const pool = devnet.addresses.pools.wethUsdc.address;
    const [sqrt, tick] = await plain.readContract({ address: pool, abi: poolAbi, functionName: 'slot0' });
    const panel = await rt.pools.panel({ chain: 'devnet', address: pool });
    expect(panel.sqrt_price_x96).toBe(sqrt.toString());
    expect(panel.tick).toBe(tick);
  });

  describe('bad input is a ToolError naming the problem', () => {
    const expectToolError = async (p: Promise<unknown>, code: string, message: RegExp): Promise<void> => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ToolError);
      expect((err as ToolError).details?.['code']).toBe(code);
      expect((err as ToolError).message).toMatch(message);
    };
    it('rejects an unknown chain', () =>
      expectToolError(
        rt.pools.panel({ chain: 'solana', address: devnet.addresses.factory }),
        'CR_UNKNOWN_CHAIN',
        /chain: unknown chain "solana"/,
      ));
    it('rejects a chain without RPC URLs', () =>
      expectToolError(rt.pools.panel({ chain: 'eth', address: devnet.addresses.factory }), 'CR_UNKNOWN_CHAIN', /chain/));
    it('rejects a malformed address', () =>
      expectToolError(rt.pools.panel({ chain: 'devnet', address: '0x1234' }), 'CR_BAD_ADDRESS', /address: "0x1234" is not/));
    it('rejects an EOA', () =>
      expectToolError(rt.pools.panel({ chain: 'devnet', address: devnet.addresses.eoa }), 'CR_NOT_A_CONTRACT', /no contract code/));
    it('rejects a contract that is not a pool', () =>
      expectToolError(rt.pools.panel({ chain: 'devnet', address: devnet.addresses.usdc }), 'CR_NOT_A_POOL', /is not a Uniswap V3 pool/));
  });
});
