import { createPublicClient, http, parseAbi } from 'viem';
import { startDevnet, type Devnet } from './start-devnet';

describe('startDevnet', () => {
  let devnet: Devnet;
  beforeAll(async () => { devnet = await startDevnet({ port: 0 }); });
  afterAll(async () => { await devnet?.stop(); });

  it('seeds Multicall3 at its canonical address and pools with liquidity', async () => {
    const client = createPublicClient({ transport: http(devnet.rpcUrl) });
    const code = await client.getCode({ address: devnet.addresses.multicall3 });
    expect(code && code.length).toBeGreaterThan(100);
    const pool = devnet.addresses.pools.wethUsdc;
    const liq = await client.readContract({ address: pool.address, abi: parseAbi(['function liquidity() view returns (uint128)']), functionName: 'liquidity' });
    expect(liq).toBeGreaterThan(0n);
    const bal = await client.readContract({ address: devnet.addresses.weth, abi: parseAbi(['function balanceOf(address) view returns (uint256)']), functionName: 'balanceOf', args: [pool.address] });
    expect(bal).toBeGreaterThan(100n * 10n ** 18n);
  });
});
