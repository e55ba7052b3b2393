import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, http, parseAbi } from 'viem';
import { startDevnet, type Devnet } from './start-devnet';

describe('startDevnet', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
  });
  afterAll(async () => {
    await devnet?.stop();
  });

  it('seeds Multicall3 at its canonical address and pools with liquidity', async () => {
    const client = createPublicClient({ transport: http(devnet.rpcUrl) });
    const code = await client.getCode({ address: devnet.addresses.multicall3 });
    expect(code && code.length).toBeGreaterThan(100);
    const pool = devnet.addresses.pools.wethUsdc;
    const liq = await client.readContract({
      address: pool.address,
      abi: parseAbi(['function liquidity() view returns (uint128)']),
      functionName: 'liquidity',
    });
    expect(liq).toBeGreaterThan(0n);
    const bal = await client.readContract({
      address: devnet.addresses.weth,
      abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
      functionName: 'balanceOf',
      args: [pool.address],
    });
    expect(bal).toBeGreaterThan(100n * 10n ** 18n);
    expect(devnet.reusedState).toBe(false);
  });

  it('saves its state under stateDir and loads it on the next start instead of redeploying; a changed fingerprint redeploys', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cr-devnet-state-'));
    try {
      const first = await startDevnet({ port: 0, stateDir: dir });
      const firstHead = await createPublicClient({ transport: http(first.rpcUrl) }).getBlockNumber();
      await first.stop();
      expect(first.reusedState).toBe(false);
      const files = readdirSync(dir).sort();
      expect(files).toEqual([
        expect.stringMatching(/^devnet-[0-9a-f]{16}\.json$/),
        expect.stringMatching(/^devnet-[0-9a-f]{16}\.state\.json$/),
      ]);

      const second = await startDevnet({ port: 0, stateDir: dir });
      try {
        expect(second.reusedState).toBe(true);
        expect(second.addresses).toEqual(first.addresses);
        const client = createPublicClient({ transport: http(second.rpcUrl) });
        // The loaded chain is the deployed one: same head, pool state and balances.
        expect(await client.getBlockNumber()).toBe(firstHead);
        const liq = await client.readContract({
          address: second.addresses.pools.wethUsdc.address,
          abi: parseAbi(['function liquidity() view returns (uint128)']),
          functionName: 'liquidity',
        });
        expect(liq).toBeGreaterThan(0n);
      } finally {
        await second.stop();
      }

      // A saved devnet whose fingerprint does not match (another deploy script/artefacts) is never loaded.
      const meta = files.find((f) => !f.includes('.state.'))!;
      rmSync(path.join(dir, meta));
      rmSync(path.join(dir, meta.replace('.json', '.state.json')));
      writeFileSync(
        path.join(dir, 'devnet-0000000000000000.json'),
        JSON.stringify({ fingerprint: '0000000000000000', addresses: first.addresses }),
      );
      writeFileSync(path.join(dir, 'devnet-0000000000000000.state.json'), '{}');
      const third = await startDevnet({ port: 0, stateDir: dir });
      await third.stop();
      expect(third.reusedState).toBe(false);
      expect(readdirSync(dir).some((f) => f.startsWith('devnet-0000000000000000'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
