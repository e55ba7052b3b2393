import { ToolError } from '@switchboard/catalog';
import { devnetChain } from '../src/chains/devnet-chain';
import type { ChainRuntime } from '../src/chain-runtime';
import { deadEndpointUrl, startCountingProxy, type CountingProxy } from '../src/devnet/counting-proxy';
import { startDevnet, type Devnet } from '../src/devnet/start-devnet';
import { testRuntime } from '../src/testing/test-runtime';

describe('chain-reader resilience', () => {
  let devnet: Devnet;
  let proxy: CountingProxy;
  const runtimes: ChainRuntime[] = [];
  const track = (r: ChainRuntime): ChainRuntime => {
    runtimes.push(r);
    return r;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    proxy = await startCountingProxy(devnet.rpcUrl);
  });
  afterAll(async () => {
    for (const r of runtimes) await r.close({ purge: true });
    await proxy?.close();
    await devnet?.stop();
  });

  it('answers every tool with Redis unreachable (direct reads, inline analysis)', async () => {
    const closed = await deadEndpointUrl();
    const rt = track(testRuntime({ devnet: devnetChain(devnet, [devnet.rpcUrl]) }, { redisUrl: closed.replace('http', 'redis') }));
    const panel = await rt.pools.panel({ chain: 'devnet', address: devnet.addresses.pools.wethUsdc.address });
    expect(panel.tvl_usd).toBeGreaterThan(0);
    const state = await rt.contractState.read({ chain: 'devnet', address: devnet.addresses.usdc, function_name: 'decimals' });
    expect(state.result).toBe('6');
    const info = await rt.contractInfo.info({ chain: 'devnet', address: devnet.addresses.usdc });
    expect(info).toMatchObject({ adapter: 'erc20', analysis_via: 'inline' });
    expect(rt.cache.ready).toBe(false);
  });

  it('fails over to the second endpoint when the first is dead', async () => {
    const dead = await deadEndpointUrl();
    const rt = track(testRuntime({ devnet: devnetChain(devnet, [dead, proxy.url]) }));
    proxy.reset();
    const panel = await rt.pools.panel({ chain: 'devnet', address: devnet.addresses.pools.tknWeth.address });
    expect(panel.pair).toMatch(/dTKN/);
    expect(proxy.count('eth_call')).toBeGreaterThan(0);
    const state = await rt.contractState.read({ chain: 'devnet', address: devnet.addresses.weth, function_name: 'symbol' });
    expect(state.result).toBe('dWETH');
  });

  it('gives a clear tool error when every endpoint is dead', async () => {
    const rt = track(testRuntime({ devnet: devnetChain(devnet, [await deadEndpointUrl(), await deadEndpointUrl()]) }));
    for (const call of [
      () => rt.pools.panel({ chain: 'devnet', address: devnet.addresses.pools.wethUsdc.address }),
      () => rt.contractState.read({ chain: 'devnet', address: devnet.addresses.usdc, function_name: 'decimals' }),
      () => rt.contractInfo.info({ chain: 'devnet', address: devnet.addresses.usdc }),
    ]) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ToolError);
      expect((err as ToolError).details?.['code']).toBe('CR_RPC_UNAVAILABLE');
      expect((err as ToolError).message).toMatch(/chain "devnet": no RPC endpoint answered \(2 tried\)/);
    }
  });
});
