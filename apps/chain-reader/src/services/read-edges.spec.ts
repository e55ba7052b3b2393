import { ToolError } from '@switchboard/catalog';
import { getAddress } from 'viem';
import { devnetChain } from '../chains/devnet-chain';
import type { ChainRuntime } from '../chain-runtime';
import { startCountingProxy, type CountingProxy } from '../devnet/counting-proxy';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { MAX_ERROR_MESSAGE_CHARS } from '../errors';
import { testRuntime } from '../testing/test-runtime';

// The edges an independent oracle found (issue 17, findings 1–6 and beacon proxies), on the devnet.
describe('chain-reader edges on the devnet', () => {
  let devnet: Devnet;
  let proxy: CountingProxy;
  let rt: ChainRuntime;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    proxy = await startCountingProxy(devnet.rpcUrl);
    rt = testRuntime({ devnet: devnetChain(devnet, [proxy.url]) });
    await rt.cache.waitReady(2_000);
  });
  afterAll(async () => {
    await rt?.close({ purge: true });
    await proxy?.close();
    await devnet?.stop();
  });

  const failure = async (p: Promise<unknown>): Promise<{ code: unknown; message: string; field: unknown }> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    const t = err as ToolError;
    return { code: t.details?.['code'], message: t.message, field: t.details?.['field'] };
  };
  const read = (input: Record<string, unknown>) =>
    rt.contractState.read({ chain: 'devnet', ...input } as Parameters<ChainRuntime['contractState']['read']>[0]);

  describe('1: a pool created but never initialised', () => {
    it('is reported as not initialised, naming address (not an internal error)', async () => {
      const f = await failure(rt.pools.panel({ chain: 'devnet', address: devnet.addresses.uninitializedPool }));
      expect(f).toEqual({
        code: 'CR_POOL_NOT_INITIALIZED',
        field: 'address',
        message: expect.stringMatching(/^address: 0x[0-9a-fA-F]{40} is a Uniswap V3 pool .* not initialised: slot0\.sqrtPriceX96 is 0/),
      });
    });
  });

  describe('2: EIP-55 checksums', () => {
    const typo = (a: string): string => {
      // Change one hex digit, keep the (now wrong) mixed-case checksum of the original.
      const i = 41;
      const c = a[i]!.toLowerCase() === 'a' ? 'b' : 'a';
      return a.slice(0, i) + (a[i] === a[i]!.toUpperCase() ? c.toUpperCase() : c) + a.slice(i + 1);
    };
    it('refuses a one-digit typo of a checksummed address in every tool instead of reading an empty account', async () => {
      const bad = typo(devnet.addresses.weth);
      expect(getAddress(bad.toLowerCase())).not.toBe(bad);
      proxy.reset();
      for (const p of [
        rt.contractInfo.info({ chain: 'devnet', address: bad }),
        rt.pools.panel({ chain: 'devnet', address: bad }),
        read({ address: bad, function_name: 'decimals' }),
      ]) {
        expect(await failure(p)).toEqual({
          code: 'CR_BAD_CHECKSUM',
          field: 'address',
          message: expect.stringMatching(/^address: .* bad EIP-55 checksum/),
        });
      }
      expect(proxy.total()).toBe(0);
    });
    it('checks address arguments too, and accepts the same address all lower-case', async () => {
      const bad = typo(devnet.addresses.eoa);
      expect(await failure(read({ address: devnet.addresses.weth, function_name: 'balanceOf', args: [bad] }))).toEqual({
        code: 'CR_BAD_CHECKSUM',
        field: 'args[0]',
        message: expect.stringMatching(/^args\[0\] \(owner: address\): .* bad EIP-55 checksum/),
      });
      const ok = await read({
        address: devnet.addresses.weth.toLowerCase(),
        function_name: 'balanceOf',
        args: [devnet.addresses.eoa.toLowerCase()],
      });
      expect(ok.result).toBe('0');
    });
  });

  describe('3: block_number and calldata bounds', () => {
    it('names block_number when it is beyond the chain head', async () => {
      const f = await failure(read({ address: devnet.addresses.usdc, function_name: 'decimals', block_number: 1_000_000_000 }));
      expect(f).toEqual({
        code: 'CR_BLOCK_NOT_FOUND',
        field: 'block_number',
        message: expect.stringMatching(/^block_number: 1000000000 is beyond the head of chain "devnet" \(block \d+\)$/),
      });
    });
    it('refuses calldata over the 32 KiB bound naming args, before any eth_call; the bound itself passes', async () => {
      // sum(uint256[],int8): selector + offset + int8 + length = 100 bytes, then 32 per item.
      const atBound = Array.from({ length: Math.floor((32_768 - 100) / 32) }, () => 1);
      const ok = await read({ address: devnet.addresses.probe, function_name: 'sum', args: [atBound, 0] });
      expect(ok.result).toBe(String(atBound.length));
      proxy.reset();
      const over = await failure(read({ address: devnet.addresses.probe, function_name: 'sum', args: [[...atBound, 1], 0] }));
      expect(over).toEqual({
        code: 'CR_CALLDATA_TOO_LARGE',
        field: 'args',
        message: expect.stringMatching(/^args: sum\(uint256\[\],int8\) encodes to 32772 bytes of calldata, more than the 32768-byte limit/),
      });
      for (const n of [50_000, 100_000]) {
        const huge = await failure(
          read({ address: devnet.addresses.probe, function_name: 'sum', args: [Array.from({ length: n }, () => 1), 0] }),
        );
        expect(huge).toEqual({
          code: 'CR_CALLDATA_TOO_LARGE',
          field: 'args[0]',
          message: expect.stringMatching(new RegExp(`^args\\[0\\] \\(xs: uint256\\[\\]\\): ${n} items cannot fit in 32768 bytes`)),
        });
      }
      expect(proxy.count('eth_call')).toBe(0);
    });
  });

  describe('4: error text is capped', () => {
    it('does not echo a 1,000,000-digit integer back', async () => {
      const f = await failure(read({ address: devnet.addresses.probe, function_name: 'echo(uint256)', args: ['9'.repeat(1_000_000)] }));
      expect(f.code).toBe('CR_BAD_ARGUMENT');
      expect(f.message).toMatch(/^args\[0\] \(a: uint256\): integer text of 1000000 characters is longer than any uint256/);
      expect(f.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
      const long = await failure(read({ address: devnet.addresses.probe, function_name: 'echo(address)', args: ['x'.repeat(500_000)] }));
      expect(long.message.length).toBeLessThan(300);
      expect(long.message).toMatch(/\(500000 chars\)/);
      const name = await failure(read({ address: devnet.addresses.usdc, function_name: 'f'.repeat(200_000) }));
      expect(name.code).toBe('CR_UNKNOWN_FUNCTION');
      expect(name.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS + 100);
    });
  });

  describe('5 and 9: proxies', () => {
    it('read_contract_state uses the implementation’s registered ABI behind EIP-1967 and beacon proxies', async () => {
      const via1967 = await read({ address: devnet.addresses.proxy1967, function_name: 'echo(uint256)', args: ['21'] });
      expect(via1967).toMatchObject({
        result: '42',
        abi_source: 'registered',
        abi_via_proxy: { standard: 'eip1967', implementation: devnet.addresses.probe },
      });
      const viaBeacon = await read({ address: devnet.addresses.proxyBeacon, function_name: 'echo(uint256)', args: ['5'] });
      expect(viaBeacon).toMatchObject({
        result: '10',
        abi_via_proxy: { standard: 'eip1967_beacon', implementation: devnet.addresses.probe, beacon: devnet.addresses.beacon },
      });
      const via1167 = await read({ address: devnet.addresses.proxy1167, function_name: 'pair' });
      expect(via1167).toMatchObject({ abi_via_proxy: { standard: 'eip1167', implementation: devnet.addresses.probe } });
    });
    it('get_contract_info detects an EIP-1967 beacon proxy and counts the implementation’s ABI', async () => {
      const info = await rt.contractInfo.info({ chain: 'devnet', address: devnet.addresses.proxyBeacon });
      expect(info.proxy).toEqual({ standard: 'eip1967_beacon', implementation: devnet.addresses.probe, beacon: devnet.addresses.beacon });
      expect(info).toMatchObject({ name: 'DevProbe', abi_source: 'registered', abi_label: 'DevProbe' });
      const beacon = await rt.contractInfo.info({ chain: 'devnet', address: devnet.addresses.beacon });
      expect(beacon.proxy).toBeNull();
    });
  });

  describe('6: caller-sensitive reads', () => {
    it('says a batched read ran inside Multicall3 (msg.sender = Multicall3)', async () => {
      // Through the EIP-1967 proxy with a signature of our own: nothing marks it caller-sensitive.
      const r = await read({ address: devnet.addresses.proxy1967, function_name: 'function whoami() view returns (address)' });
      expect(r.result).toBe(devnet.addresses.multicall3);
      expect(r.execution).toMatchObject({ via: 'multicall3', msg_sender: devnet.addresses.multicall3 });
    });
    it('runs a read with `caller` as a plain eth_call from that address', async () => {
      proxy.reset();
      const r = await read({
        address: devnet.addresses.probe,
        function_name: 'function whoami() view returns (address)',
        caller: devnet.addresses.eoa,
      });
      expect(r.result).toBe(devnet.addresses.eoa);
      expect(r.execution).toMatchObject({ via: 'eth_call', msg_sender: devnet.addresses.eoa });
      expect(proxy.count('eth_call')).toBe(1);
      const bad = await failure(read({ address: devnet.addresses.probe, function_name: 'counter', caller: 'nope' }));
      expect(bad).toMatchObject({ code: 'CR_BAD_ADDRESS', field: 'caller' });
    });
    it('sends functions the registered ABI marks caller-sensitive as a plain eth_call', async () => {
      const r = await read({ address: devnet.addresses.probe, function_name: 'whoami' });
      expect(r.abi_source).toBe('registered');
      expect(r.result).toBe('0x0000000000000000000000000000000000000000');
      expect(r.execution).toMatchObject({ via: 'eth_call', msg_sender: '0x0000000000000000000000000000000000000000' });
    });
  });
});
