import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  maxUint256,
  stringToHex,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { compileDevnetContracts } from './compile-contracts';
import { encodeSqrtPriceX96, isqrt } from '../pricing/sqrt-price';

/** Multicall3's address on every chain that has it; the devnet puts it there too. */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** anvil's funded dev account #0 ("test test … junk"); it holds the seeded tokens and approvals. Devnet only. */
export const DEV_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEVNET_CHAIN_ID = 31337;
const FULL_RANGE_60 = 887220;
const FULL_RANGE_10 = 887270;
// Fixed gas limits instead of eth_estimateGas: a V3 swap costs more when it lands in a new
// second (it writes an oracle observation), so an estimate taken a moment earlier can be short.
const DEPLOY_GAS = 12_000_000n;
const TX_GAS = 10_000_000n;

/** A seeded pool and the amounts it was seeded with. */
export interface DevnetPool {
  address: Address;
  token0: Address;
  token1: Address;
  fee: number;
  tickSpacing: number;
}

/** Everything deployed on the devnet. */
export interface DevnetAddresses {
  multicall3: Address;
  factory: Address;
  helper: Address;
  /** 6-decimals stablecoin stand-in. */
  usdc: Address;
  /** 18 decimals, priced by the ETH/USD feed. */
  weth: Address;
  /** 18 decimals, priced through the configured dTKN/dWETH anchor pool. */
  tkn: Address;
  /** 18 decimals, bytes32 name and symbol ("dB32"). */
  b32: Address;
  /** 18 decimals, no price source at all. */
  nop: Address;
  /** ETH/USD feed, 8 decimals, 3000. */
  ethUsdFeed: Address;
  nft: Address;
  probe: Address;
  proxy1967: Address;
  proxy1167: Address;
  /** UpgradeableBeacon-style beacon whose implementation() is the probe. */
  beacon: Address;
  /** EIP-1967 beacon proxy in front of `beacon`. */
  proxyBeacon: Address;
  /** A funded account with no code. */
  eoa: Address;
  pools: {
    /** dWETH/dUSDC 0.3%: 100 dWETH + 300,000 dUSDC at 3000, then one 1-dWETH swap. */
    wethUsdc: DevnetPool;
    /** dTKN/dWETH 0.3%: 10,000 dTKN + 100 dWETH at 0.01 dWETH per dTKN, no swap. */
    tknWeth: DevnetPool;
    /** dB32/dUSDC 0.05%: 1,000 dB32 + 2,000 dUSDC at 2 dUSDC per dB32, no swap. */
    b32Usdc: DevnetPool;
    /** dNOP/dB32 0.3%: nothing here has a USD price. */
    nopB32: DevnetPool;
  };
  /** dNOP/dUSDC 1%: created by the factory but never initialised (sqrtPriceX96 = 0). */
  uninitializedPool: Address;
}

export interface Devnet {
  rpcUrl: string;
  /** True when the chain was loaded from a saved state (`stateDir`) instead of deployed. */
  reusedState: boolean;
  chainId: number;
  addresses: DevnetAddresses;
  /** ABIs of the devnet's own contracts, by contract name. */
  abis: Record<string, Abi>;
  stop(): Promise<void>;
}

export interface StartDevnetOptions {
  /** 0 (default) lets the OS pick a free port. */
  port?: number;
  /** Milliseconds to wait for anvil to listen. Default 15 s. */
  readyTimeoutMs?: number;
  /**
   * Directory for a saved devnet (anvil state dump + addresses). When set, a state saved by an
   * identical deploy (same contracts, compiler output, deploy script, Uniswap artefacts, Multicall3
   * code and anvil version) is loaded with `--load-state` instead of redeploying; otherwise the
   * devnet is deployed and its state saved there. Unset (tests): always deploy.
   */
  stateDir?: string;
}

interface SavedDevnet {
  fingerprint: string;
  addresses: DevnetAddresses;
}

function anvilBinary(): string {
  const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}/package.json`);
  return path.join(path.dirname(pkg), 'bin', 'anvil');
}

function spawnAnvil(port: number, timeoutMs: number, loadState?: string): Promise<{ child: ChildProcess; url: string }> {
  // Spawned directly (not via the npm wrapper) so the pid we stop is anvil itself.
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(DEVNET_CHAIN_ID), ...(loadState ? ['--load-state', loadState] : [])];
  const child = spawn(anvilBinary(), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`anvil did not listen within ${timeoutMs} ms: ${out.slice(-500)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      if (out.length < 64_000) out += chunk.toString();
      const m = /Listening on ([\d.]+):(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // Keep draining so anvil never blocks on a full pipe.
        child.stdout?.removeListener('data', onData);
        child.stdout?.resume();
        resolve({ child, url: `http://${m[1]}:${m[2]}` });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => { if (out.length < 64_000) out += c.toString(); });
    child.once('error', (err) => { clearTimeout(timer); reject(err); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`anvil exited with ${code}: ${out.slice(-500)}`)); });
  });
}

function viemMulticall3CreationCode(): Hex {
  // viem bundles Multicall3's creation code for "deployless" multicall but does not export it.
  const file = path.join(path.dirname(require.resolve('viem')), 'constants', 'contracts.js');
  const m = /multicall3Bytecode = '(0x[0-9a-f]+)'/.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error('Multicall3 bytecode not found in viem');
  return m[1] as Hex;
}

/**
 * Starts anvil and seeds it: Multicall3 at its canonical address, dev ERC-20s (6 and 18
 * decimals, one with bytes32 name/symbol), a Uniswap V3 factory and four pools from
 * `@uniswap/v3-core` with liquidity and one swap, an ETH/USD feed, an ERC-721, proxies.
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const compiled = await compileDevnetContracts();
  const abis: Record<string, Abi> = {};
  for (const [name, c] of Object.entries(compiled)) abis[name] = c.abi;
  const fingerprint = options.stateDir ? devnetFingerprint(compiled) : undefined;
  const saved = options.stateDir && fingerprint ? await readSaved(options.stateDir, fingerprint) : undefined;
  const { child, url } = await spawnAnvil(options.port ?? 0, options.readyTimeoutMs ?? 15_000, saved?.stateFile);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  try {
    if (saved && (await looksSeeded(url, saved.addresses))) {
      return { rpcUrl: url, reusedState: true, chainId: DEVNET_CHAIN_ID, addresses: saved.addresses, abis, stop };
    }
    if (saved) {
      // The saved state did not load as expected: drop it and deploy on a clean node.
      await stop();
      await rm(saved.stateFile.replace(/\.state\.json$/, '.json'), { force: true });
      return startDevnet(options);
    }
    const addresses = await seed(url, compiled);
    if (options.stateDir && fingerprint) await saveState(url, options.stateDir, fingerprint, addresses);
    return { rpcUrl: url, reusedState: false, chainId: DEVNET_CHAIN_ID, addresses, abis, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Identity of a deployed devnet: everything that decides what `seed` puts on chain. Any change
 * (contracts, compiler output, this deploy script, the Uniswap artefacts, viem's Multicall3,
 * the anvil build) gives a new fingerprint, so a stale saved state is never loaded.
 */
function devnetFingerprint(compiled: Record<string, { abi: Abi; bytecode: Hex }>): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(compiled));
  h.update(readFileSync(__filename));
  h.update(readFileSync(require.resolve('@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json')));
  h.update(viemMulticall3CreationCode());
  h.update(readFileSync(path.join(path.dirname(anvilBinary()), '..', 'package.json')));
  return h.digest('hex').slice(0, 16);
}

async function readSaved(dir: string, fingerprint: string): Promise<(SavedDevnet & { stateFile: string }) | undefined> {
  const meta = path.join(dir, `devnet-${fingerprint}.json`);
  const stateFile = path.join(dir, `devnet-${fingerprint}.state.json`);
  try {
    const saved = JSON.parse(await readFile(meta, 'utf8')) as SavedDevnet;
    await readFile(stateFile, { flag: 'r' }).then((b) => { if (b.length === 0) throw new Error('empty state'); });
    return saved.fingerprint === fingerprint ? { ...saved, stateFile } : undefined;
  } catch {
    return undefined;
  }
}

async function saveState(url: string, dir: string, fingerprint: string, addresses: DevnetAddresses): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }) });
  const body = (await res.json()) as { result?: Hex };
  if (!body.result) return;
  // anvil_dumpState answers gzipped JSON as hex; --load-state reads the JSON.
  const state = gunzipSync(Buffer.from(body.result.slice(2), 'hex'));
  await mkdir(dir, { recursive: true });
  // Older fingerprints are stale by definition: drop them.
  for (const f of await readdir(dir)) if (/^devnet-[0-9a-f]{16}(\.state)?\.json$/.test(f) && !f.includes(fingerprint)) await rm(path.join(dir, f), { force: true });
  const write = async (file: string, data: string | Buffer): Promise<void> => {
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, file);
  };
  // State first, metadata last: the metadata file's presence means the pair is complete.
  await write(path.join(dir, `devnet-${fingerprint}.state.json`), state);
  await write(path.join(dir, `devnet-${fingerprint}.json`), JSON.stringify({ fingerprint, addresses } satisfies SavedDevnet));
}

/** A loaded state is usable when Multicall3 and the main pool have code. */
async function looksSeeded(url: string, addresses: DevnetAddresses): Promise<boolean> {
  const client = createPublicClient({ transport: http(url) });
  try {
    const [mc, pool] = await Promise.all([client.getCode({ address: addresses.multicall3 }), client.getCode({ address: addresses.pools.wethUsdc.address })]);
    return (mc?.length ?? 0) > 2 && (pool?.length ?? 0) > 2;
  } catch {
    return false;
  }
}

async function seed(url: string, compiled: Awaited<ReturnType<typeof compileDevnetContracts>>): Promise<DevnetAddresses> {
  const chain = defineChain({
    id: DEVNET_CHAIN_ID,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const account = privateKeyToAccount(DEV_KEY);
  const pub: PublicClient = createPublicClient({ chain, transport: http(url) });
  const wallet = createWalletClient({ chain, account, transport: http(url) });
  const me = account.address;

  const deploy = async (name: string, args: readonly unknown[] = []): Promise<Address> => {
    const c = compiled[name];
    if (!c) throw new Error(`no compiled contract ${name}`);
    const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args, gas: DEPLOY_GAS });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (!receipt.contractAddress || receipt.status !== 'success') throw new Error(`deploying ${name} failed`);
    return getAddress(receipt.contractAddress);
  };
  const send = async (to: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<void> => {
    const hash = await wallet.writeContract({ address: to, abi, functionName, args, chain, account, gas: TX_GAS });
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== 'success') throw new Error(`${functionName} on ${to} reverted`);
  };
  const abiOf = (name: string): Abi => {
    const c = compiled[name];
    if (!c) throw new Error(`no compiled contract ${name}`);
    return c.abi;
  };

  // Multicall3: an eth_call of the creation code returns the runtime code, which we place at the canonical address.
  const runtime = await pub.call({ data: viemMulticall3CreationCode() });
  if (!runtime.data) throw new Error('Multicall3 creation returned no code');
  await pub.request({ method: 'anvil_setCode' as 'eth_call', params: [MULTICALL3_ADDRESS, runtime.data] as never });

  const factoryArtifact = JSON.parse(readFileSync(require.resolve('@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json'), 'utf8')) as { abi: Abi; bytecode: Hex };
  const poolArtifact = JSON.parse(readFileSync(require.resolve('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'), 'utf8')) as { abi: Abi };
  const factoryHash = await wallet.deployContract({ abi: factoryArtifact.abi, bytecode: factoryArtifact.bytecode, args: [], gas: DEPLOY_GAS });
  const factoryReceipt = await pub.waitForTransactionReceipt({ hash: factoryHash, pollingInterval: 5 });
  const factory = getAddress(factoryReceipt.contractAddress ?? '0x');

  const usdc = await deploy('DevToken', ['Dev USD Coin', 'dUSDC', 6]);
  const weth = await deploy('DevToken', ['Dev Wrapped Ether', 'dWETH', 18]);
  const tkn = await deploy('DevToken', ['Dev Token', 'dTKN', 18]);
  const b32 = await deploy('DevBytes32Token', [stringToHex('Dev Bytes32 Token', { size: 32 }), stringToHex('dB32', { size: 32 })]);
  const nop = await deploy('DevToken', ['Dev Unpriced', 'dNOP', 18]);
  const helper = await deploy('DevPoolHelper');
  const ethUsdFeed = await deploy('DevAggregator', [8, 'ETH / USD', 3000n * 10n ** 8n]);
  const nft = await deploy('DevNFT', ['Dev Collectibles', 'dNFT']);
  const probe = await deploy('DevProbe');
  const proxy1967 = await deploy('DevProxy1967', [probe]);
  const beacon = await deploy('DevBeacon', [probe]);
  const proxyBeacon = await deploy('DevBeaconProxy', [beacon]);
  // EIP-1167 minimal proxy pointing at the probe: creation prefix + runtime with the address inlined.
  const cloneHash = await wallet.sendTransaction({
    data: `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${probe.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`,
    chain,
    account,
    gas: TX_GAS,
  });
  const proxy1167 = getAddress((await pub.waitForTransactionReceipt({ hash: cloneHash, pollingInterval: 5 })).contractAddress ?? '0x');
  await send(nft, abiOf('DevNFT'), 'mint', [me, 1n]);

  const tokenAbi = abiOf('DevToken');
  for (const t of [usdc, weth, tkn, b32, nop]) {
    await send(t, tokenAbi, 'mint', [me, 10n ** 30n]);
    await send(t, tokenAbi, 'approve', [helper, maxUint256]);
  }
  const decimalsOf: Record<string, number> = { [usdc]: 6, [weth]: 18, [tkn]: 18, [b32]: 18, [nop]: 18 };

  /** Creates a pool, initialises it at `price` (tokenB per tokenA, human units) and mints full range. */
  const makePool = async (a: Address, b: Address, fee: number, priceBperA: [bigint, bigint], amountA: bigint): Promise<DevnetPool> => {
    await send(factory, factoryArtifact.abi, 'createPool', [a, b, fee]);
    const pool = getAddress((await pub.readContract({ address: factory, abi: factoryArtifact.abi, functionName: 'getPool', args: [a, b, fee] })) as Address);
    const [token0, token1] = a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
    const d0 = decimalsOf[token0] ?? 18;
    const d1 = decimalsOf[token1] ?? 18;
    // price token1 per token0 as num/den in human units
    const [num, den] = token0 === a ? priceBperA : [priceBperA[1], priceBperA[0]];
    const sqrtPriceX96 = encodeSqrtPriceX96(num, den, d0, d1);
    await send(pool, poolArtifact.abi, 'initialize', [sqrtPriceX96]);
    // Full-range liquidity L = sqrt(x*y) in raw units for the seeded amounts.
    const dA = decimalsOf[a] ?? 18;
    const dB = decimalsOf[b] ?? 18;
    const rawA = amountA * 10n ** BigInt(dA);
    const rawB = (amountA * priceBperA[0] * 10n ** BigInt(dB)) / priceBperA[1];
    const liquidity = isqrt(rawA * rawB);
    const tickSpacing = fee === 500 ? 10 : 60;
    const range = tickSpacing === 10 ? FULL_RANGE_10 : FULL_RANGE_60;
    await send(helper, abiOf('DevPoolHelper'), 'mint', [pool, -range, range, liquidity]);
    return { address: pool, token0, token1, fee, tickSpacing };
  };

  const wethUsdc = await makePool(weth, usdc, 3000, [3000n, 1n], 100n);
  const tknWeth = await makePool(tkn, weth, 3000, [1n, 100n], 10_000n);
  const b32Usdc = await makePool(b32, usdc, 500, [2n, 1n], 1000n);
  const nopB32 = await makePool(nop, b32, 3000, [1n, 1n], 500n);

  // createPool without initialize(): what anyone can do on a real chain.
  await send(factory, factoryArtifact.abi, 'createPool', [nop, usdc, 10_000]);
  const uninitializedPool = getAddress((await pub.readContract({ address: factory, abi: factoryArtifact.abi, functionName: 'getPool', args: [nop, usdc, 10_000] })) as Address);

  // One exact-input swap of 1 dWETH so the price moves off its initial value.
  const zeroForOne = wethUsdc.token0 === weth;
  const MIN_SQRT = 4295128740n;
  const MAX_SQRT = 1461446703485210103287273052203988822378723970341n;
  await send(helper, abiOf('DevPoolHelper'), 'swap', [wethUsdc.address, zeroForOne, 10n ** 18n, zeroForOne ? MIN_SQRT : MAX_SQRT]);

  return {
    multicall3: MULTICALL3_ADDRESS,
    factory,
    helper,
    usdc,
    weth,
    tkn,
    b32,
    nop,
    ethUsdFeed,
    nft,
    probe,
    proxy1967,
    proxy1167,
    beacon,
    proxyBeacon,
    uninitializedPool,
    eoa: getAddress('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'),
    pools: { wethUsdc, tknWeth, b32Usdc, nopB32 },
  };
}
