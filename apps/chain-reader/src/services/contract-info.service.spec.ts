import { ToolError } from '@switchboard/catalog';
import { devnetChain } from '../chains/devnet-chain';
import type { ChainRuntime } from '../chain-runtime';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { testRuntime } from '../testing/test-runtime';

describe('ContractInfoService on the devnet', () => {
  let devnet: Devnet;
  let rt: ChainRuntime;
  const runtimes: ChainRuntime[] = [];
  const fresh = (): ChainRuntime => {
    const r = testRuntime({ devnet: devnetChain(devnet, [devnet.rpcUrl]) });
    runtimes.push(r);
    return r;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    rt = fresh();
    await rt.cache.waitReady(2_000);
  });
  afterAll(async () => {
    for (const r of runtimes) await r.close({ purge: true });
    await devnet?.stop();
  });

  const info = (address: string) => rt.contractInfo.info({ chain: 'devnet', address });

  it('reports an EOA as such', async () => {
    const i = await info(devnet.addresses.eoa);
    expect(i).toMatchObject({ kind: 'eoa', proxy: null, adapter: 'unknown', counts: null, code_size: 0 });
  });

  it('tags a canonical-factory pool as uniswap_v3_pool and counts from the V3 pool ABI', async () => {
    const i = await info(devnet.addresses.pools.wethUsdc.address);
    expect(i.adapter).toBe('uniswap_v3_pool');
    expect(i.abi_source).toBe('adapter');
    expect(i.counts).toMatchObject({ events: 9 });
    expect(i.counts!.view_functions).toBeGreaterThan(10);
    expect(i.counts!.write_functions).toBeGreaterThanOrEqual(8);
  });

  it('tags ERC-20s (string and bytes32 names) and ERC-721s, counting from bytecode via a shared job', async () => {
    const usdc = await info(devnet.addresses.usdc);
    expect(usdc).toMatchObject({
      kind: 'contract',
      adapter: 'erc20',
      name: 'Dev USD Coin',
      symbol: 'dUSDC',
      abi_source: 'bytecode_analysis',
    });
    // DevToken: 10 functions (6 standard views incl. name/symbol/decimals/totalSupply/balanceOf/allowance, transfer/approve/transferFrom, mint)
    expect(usdc.counts).toMatchObject({ functions: 10, view_functions: 6, write_functions: 3, unclassified_functions: 1, events: 2 });
    expect(usdc.counts_note).toMatch(/bytecode/);
    const b32 = await info(devnet.addresses.b32);
    expect(b32).toMatchObject({ adapter: 'erc20', name: 'Dev Bytes32 Token', symbol: 'dB32' });
    const nft = await info(devnet.addresses.nft);
    expect(nft).toMatchObject({ adapter: 'erc721', name: 'Dev Collectibles' });
  });

  it('detects EIP-1967 and EIP-1167 proxies with their implementation and uses its registered ABI', async () => {
    const p1967 = await info(devnet.addresses.proxy1967);
    expect(p1967.proxy).toEqual({ standard: 'eip1967', implementation: devnet.addresses.probe });
    expect(p1967.name).toBe('DevProbe');
    expect(p1967.abi_source).toBe('registered');
    expect(p1967.counts).toMatchObject({ view_functions: 11, write_functions: 1, events: 1 });
    const p1167 = await info(devnet.addresses.proxy1167);
    expect(p1167.proxy).toEqual({ standard: 'eip1167', implementation: devnet.addresses.probe });
    expect(p1167.name).toBe('DevProbe');
  });

  it('does not tag a pool as uniswap_v3_pool when the chain has another canonical factory', async () => {
    const chain = { ...devnetChain(devnet, [devnet.rpcUrl]), uniswapV3Factory: devnet.addresses.helper };
    const r = testRuntime({ devnet: chain });
    runtimes.push(r);
    const i = await r.contractInfo.info({ chain: 'devnet', address: devnet.addresses.pools.wethUsdc.address });
    expect(i.adapter).not.toBe('uniswap_v3_pool');
  });

  it('runs one analysis job for concurrent callers and serves later ones from cache', async () => {
    const r = fresh();
    await r.cache.waitReady(2_000);
    const all = await Promise.all(
      Array.from({ length: 6 }, () => r.contractInfo.info({ chain: 'devnet', address: devnet.addresses.weth })),
    );
    expect(all.every((i) => i.counts?.functions === 10)).toBe(true);
    expect(r.analysis.processed).toBe(1);
    expect(all[0]!.analysis_via).toBe('job');
    // another token with the same code: analysis comes from the cache, no new job
    const tkn = await r.contractInfo.info({ chain: 'devnet', address: devnet.addresses.tkn });
    expect(tkn.analysis_via).toBe('cache');
    expect(r.analysis.processed).toBe(1);
    const again = await r.contractInfo.info({ chain: 'devnet', address: devnet.addresses.weth });
    expect(again.cached).toBe(true);
  });

  it('rejects unknown chains and malformed addresses', async () => {
    await expect(rt.contractInfo.info({ chain: 'mars', address: devnet.addresses.weth })).rejects.toBeInstanceOf(ToolError);
    await expect(rt.contractInfo.info({ chain: 'devnet', address: 'weth' })).rejects.toThrow(/address: "weth" is not a 0x-prefixed/);
  });
});
