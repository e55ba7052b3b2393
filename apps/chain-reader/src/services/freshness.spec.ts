import { createPublicClient, http } from 'viem';
import { devnetChain } from '../chains/devnet-chain';
import type { ChainRuntime } from '../chain-runtime';
import { swapWethForUsdc } from '../devnet/devnet-swap';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { testRuntime } from '../testing/test-runtime';

/** Polls `fn` until `ok` holds, or fails after `ms`. */
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setImmediate(r));
  }
}

// One freshness model (issue 17, finding 7): every answer is read at and cached under a concrete
// block, `latest` = the head fetched at most headTtlMs ago, and every answer says block_number,
// fetched_at and cached.
describe('freshness across a swap', () => {
  let devnet: Devnet;
  let rt: ChainRuntime;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    rt = testRuntime({ devnet: devnetChain(devnet, [devnet.rpcUrl]) }, { headTtlMs: 200 });
    await rt.cache.waitReady(2_000);
  });
  afterAll(async () => {
    await rt?.close({ purge: true });
    await devnet?.stop();
  });

  const pool = () => devnet.addresses.pools.wethUsdc.address;
  const all = async () => {
    const [panel, state, info] = await Promise.all([
      rt.pools.panel({ chain: 'devnet', address: pool() }),
      rt.contractState.read({ chain: 'devnet', address: pool(), function_name: 'slot0' }),
      rt.contractInfo.info({ chain: 'devnet', address: pool() }),
    ]);
    return { panel, state, info };
  };

  it('all three tools answer for the same block, and move to the new block together after a swap', async () => {
    const before = await all();
    const b0 = before.panel.block_number;
    for (const a of [before.panel, before.state, before.info]) {
      expect(a).toMatchObject({ block_number: b0, cached: false, fetched_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    }
    // Asked again while no block was mined: the head is the same block, so all three come from
    // cache (whether or not the head itself was re-fetched), still saying when they were fetched.
    const again = await all();
    for (const [a, b] of [
      [again.panel, before.panel],
      [again.state, before.state],
      [again.info, before.info],
    ] as const) {
      expect(a).toMatchObject({ block_number: b0, cached: true, fetched_at: b.fetched_at });
    }

    const swapBlock = await swapWethForUsdc(devnet, 10n ** 17n);
    expect(swapBlock).toBeGreaterThan(BigInt(b0));
    expect(await createPublicClient({ transport: http(devnet.rpcUrl) }).getBlockNumber()).toBe(swapBlock);

    // Within the head TTL every tool moves to the swap's block — none keeps the old one for its own TTL.
    // The tools each read the (shared, 200 ms) head, so one poll can see the swap's block in one
    // tool and not yet in another; a later poll then answers the first from cache. What must hold
    // is that the first answer at the new block was a fresh read, not that the last one was.
    const seen: Awaited<ReturnType<typeof all>>[] = [];
    const after = await until(
      async () => {
        const v = await all();
        seen.push(v);
        return v;
      },
      (v) =>
        v.panel.block_number === Number(swapBlock) &&
        v.state.block_number === Number(swapBlock) &&
        v.info.block_number === Number(swapBlock),
    );
    const firstState = seen.find((v) => v.state.block_number === Number(swapBlock));
    expect(firstState?.state.cached).toBe(false);
    expect(after.state.fetched_at).toBe(firstState?.state.fetched_at);
    expect(after.panel.sqrt_price_x96).not.toBe(before.panel.sqrt_price_x96);
    expect((after.state.result as { sqrtPriceX96: string }).sqrtPriceX96).toBe(after.panel.sqrt_price_x96);
    expect((before.state.result as { sqrtPriceX96: string }).sqrtPriceX96).toBe(before.panel.sqrt_price_x96);
    expect(Date.parse(after.state.fetched_at)).toBeGreaterThanOrEqual(Date.parse(before.state.fetched_at));
  });

  it('keeps answers at an explicit old block after the head moved', async () => {
    const head = Number(await createPublicClient({ transport: http(devnet.rpcUrl) }).getBlockNumber());
    const old = await rt.contractState.read({ chain: 'devnet', address: pool(), function_name: 'slot0', block_number: head - 1 });
    expect(old.block_number).toBe(head - 1);
    const latest = await rt.contractState.read({ chain: 'devnet', address: pool(), function_name: 'slot0' });
    expect(latest.block_number).toBe(head);
    expect((old.result as { sqrtPriceX96: string }).sqrtPriceX96).not.toBe((latest.result as { sqrtPriceX96: string }).sqrtPriceX96);
  });
});
