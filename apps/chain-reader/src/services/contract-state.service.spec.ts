import { ToolError } from '@switchboard/catalog';
import { devnetChain } from '../chains/devnet-chain';
import type { ChainRuntime } from '../chain-runtime';
import { startCountingProxy, type CountingProxy } from '../devnet/counting-proxy';
import { startDevnet, type Devnet } from '../devnet/start-devnet';
import { testRuntime } from '../testing/test-runtime';
import type { ReadContractStateInput } from './contract-state.service';

describe('ContractStateService on the devnet', () => {
  let devnet: Devnet;
  let proxy: CountingProxy;
  let rt: ChainRuntime;
  const runtimes: ChainRuntime[] = [];
  const fresh = (): ChainRuntime => {
    const r = testRuntime({ devnet: devnetChain(devnet, [proxy.url]) });
    runtimes.push(r);
    return r;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    proxy = await startCountingProxy(devnet.rpcUrl);
    rt = fresh();
    await rt.cache.waitReady(2_000);
  });
  afterAll(async () => {
    for (const r of runtimes) await r.close({ purge: true });
    await proxy?.close();
    await devnet?.stop();
  });

  const read = (input: Omit<ReadContractStateInput, 'chain'>) => rt.contractState.read({ chain: 'devnet', ...input });
  const expectToolError = async (p: Promise<unknown>, code: string, message: RegExp): Promise<ToolError> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect({ code: (err as ToolError).details?.['code'], message: (err as ToolError).message }).toEqual({
      code,
      message: expect.stringMatching(message),
    });
    return err as ToolError;
  };

  it('reads a standard ERC-20 function by name with integers as decimal strings', async () => {
    const r = await read({ address: devnet.addresses.weth, function_name: 'balanceOf', args: [devnet.addresses.pools.wethUsdc.address] });
    expect(r.function).toBe('balanceOf(address)');
    expect(r.abi_source).toBe('common');
    expect(r.result).toMatch(/^\d+$/);
    expect(BigInt(r.result as string)).toBeGreaterThan(100n * 10n ** 18n);
    expect(r.block_number).toBeGreaterThan(0);
    expect(r.cached).toBe(false);
  });

  it('serves a repeated read from cache without RPC', async () => {
    const args = { address: devnet.addresses.usdc, function_name: 'totalSupply' };
    const first = await read(args);
    proxy.reset();
    const second = await read(args);
    expect(proxy.count('eth_call')).toBe(0);
    expect(second).toEqual({ ...first, cached: true });
  });

  it('returns named tuple fields and signed integers', async () => {
    const info = await read({ address: devnet.addresses.probe, function_name: 'info' });
    expect(info.abi_source).toBe('registered');
    expect(info.result).toEqual({ amount: '12345678901234567890123', who: '0x000000000000000000000000000000000000bEEF', ok: true });
    const pair = await read({ address: devnet.addresses.probe, function_name: 'pair' });
    expect(pair.result).toEqual({ amount: '1', delta: '-5', tag: expect.stringMatching(/^0x68656c6c6f0+$/) });
  });

  it('takes args by input name and arrays of integers', async () => {
    const r = await read({ address: devnet.addresses.probe, function_name: 'sum', args: { xs: [1, '2', '0x03'], offset: -10 } });
    expect(r.result).toBe('-4');
  });

  it('chooses an overload by signature and refuses an ambiguous name', async () => {
    const byUint = await read({ address: devnet.addresses.probe, function_name: 'echo(uint256)', args: ['21'] });
    expect(byUint.result).toBe('42');
    const byAddr = await read({
      address: devnet.addresses.probe,
      function_name: 'echo(address)',
      args: [devnet.addresses.eoa.toLowerCase()],
    });
    expect(byAddr.result).toBe(devnet.addresses.eoa);
    await expectToolError(
      read({ address: devnet.addresses.probe, function_name: 'echo', args: ['1'] }),
      'CR_AMBIGUOUS_FUNCTION',
      /overloaded; pass one of echo\(address\), echo\(uint256\)/,
    );
  });

  it('accepts a human-readable signature or an ABI passed in', async () => {
    const sig = await read({ address: devnet.addresses.probe, function_name: 'function counter() view returns (uint256)' });
    expect(sig.result).toBe('0');
    expect(sig.abi_source).toBe('argument');
    const withAbi = await read({
      address: devnet.addresses.b32,
      function_name: 'symbol',
      abi: [{ type: 'function', name: 'symbol', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'bytes32' }] }],
    });
    expect(withAbi.result).toBe('0x6442333200000000000000000000000000000000000000000000000000000000');
  });

  it('decodes revert reasons: Error(string), custom errors and panics', async () => {
    await expectToolError(
      read({ address: devnet.addresses.probe, function_name: 'boom' }),
      'CR_REVERTED',
      /boom\(\) reverted: DevProbe: boom/,
    );
    const custom = await expectToolError(
      read({ address: devnet.addresses.probe, function_name: 'denied' }),
      'CR_REVERTED',
      /Unauthorized\(0x[0-9a-fA-F]{40}, 7\)/,
    );
    expect((custom.details?.['revert'] as { kind: string }).kind).toBe('custom');
    await expectToolError(
      read({ address: devnet.addresses.probe, function_name: 'divide', args: [1, 0] }),
      'CR_REVERTED',
      /panic 0x12 \(division or modulo by zero\)/,
    );
  });

  it('refuses non-view functions', async () => {
    await expectToolError(read({ address: devnet.addresses.probe, function_name: 'bump' }), 'CR_NOT_VIEW', /bump\(\) is nonpayable/);
    await expectToolError(
      read({ address: devnet.addresses.usdc, function_name: 'transfer', args: [devnet.addresses.eoa, 1] }),
      'CR_NOT_VIEW',
      /transfer\(address,uint256\) is nonpayable/,
    );
  });

  it('rejects unknown functions, wrong argument counts and wrong types, naming the argument', async () => {
    await expectToolError(
      read({ address: devnet.addresses.usdc, function_name: 'frobnicate' }),
      'CR_UNKNOWN_FUNCTION',
      /function_name: "frobnicate" is not in/,
    );
    await expectToolError(
      read({ address: devnet.addresses.usdc, function_name: 'balanceOf', args: [] }),
      'CR_BAD_ARGUMENT',
      /balanceOf\(address\) takes 1 argument, got 0/,
    );
    await expectToolError(
      read({ address: devnet.addresses.usdc, function_name: 'balanceOf', args: ['nope'] }),
      'CR_BAD_ARGUMENT',
      /args\[0\] \(owner: address\): expected a 0x-prefixed 20-byte address/,
    );
    await expectToolError(
      read({ address: devnet.addresses.probe, function_name: 'sum', args: [[1, 'x'], 0] }),
      'CR_BAD_ARGUMENT',
      /args\[0\]\[1\] \(uint256\): expected an integer/,
    );
    await expectToolError(
      read({ address: devnet.addresses.probe, function_name: 'sum', args: [[1], 200] }),
      'CR_BAD_ARGUMENT',
      /args\[1\] \(offset: int8\): 200 is out of range -128..127/,
    );
    await expectToolError(
      read({ address: devnet.addresses.probe, function_name: 'x', abi: 'not an abi at all (' }),
      'CR_BAD_ABI',
      /^abi: /,
    );
  });

  it('rejects unknown chains, malformed addresses and EOAs', async () => {
    await expectToolError(
      rt.contractState.read({ chain: 'nope', address: devnet.addresses.usdc, function_name: 'decimals' }),
      'CR_UNKNOWN_CHAIN',
      /chain: unknown chain "nope"/,
    );
    await expectToolError(read({ address: '0xZZ', function_name: 'decimals' }), 'CR_BAD_ADDRESS', /address: "0xZZ"/);
    await expectToolError(read({ address: devnet.addresses.eoa, function_name: 'decimals' }), 'CR_NOT_A_CONTRACT', /has no contract code/);
  });

  it('coalesces 200 concurrent distinct reads into a handful of eth_calls and deduplicates identical ones', async () => {
    const r = fresh();
    await r.cache.waitReady(2_000);
    proxy.reset();
    const holders = Array.from({ length: 200 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    const results = await Promise.all(
      holders.map((h) => r.contractState.read({ chain: 'devnet', address: devnet.addresses.weth, function_name: 'balanceOf', args: [h] })),
    );
    expect(results.every((x) => x.result === '0')).toBe(true);
    expect(new Set(results.map((x) => x.block_number)).size).toBe(1);
    expect(proxy.count('eth_call')).toBeLessThanOrEqual(2);
    const r2 = fresh();
    await r2.cache.waitReady(2_000);
    proxy.reset();
    const same = await Promise.all(
      Array.from({ length: 50 }, () =>
        r2.contractState.read({ chain: 'devnet', address: devnet.addresses.weth, function_name: 'decimals' }),
      ),
    );
    expect(same.every((x) => x.result === '18')).toBe(true);
    expect(proxy.count('eth_call')).toBe(1);
  });

  it('reads at an explicit block number', async () => {
    const latest = await read({ address: devnet.addresses.usdc, function_name: 'decimals' });
    const at = await read({ address: devnet.addresses.usdc, function_name: 'decimals', block_number: latest.block_number });
    expect(at.block_number).toBe(latest.block_number);
    expect(at.result).toBe('6');
  });
});
