import { readFileSync } from 'node:fs';
import path from 'node:path';
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
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { compileDevnetContracts } from './compile-contracts';
import { encodeSqrtPriceX96, isqrt } from '../pricing/sqrt-price';

/** Multicall3's address on every chain that has it; the devnet puts it there too. */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** anvil's funded dev account #0 ("test test … junk"); it holds the seeded tokens and approvals. Devnet only. */
export const DEV_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const DEVNET_CHAIN_ID = 31337;
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

export function viemMulticall3CreationCode(): Hex {
  // viem bundles Multicall3's creation code for "deployless" multicall but does not export it.
  const file = path.join(path.dirname(require.resolve('viem')), 'constants', 'contracts.js');
  const m = /multicall3Bytecode = '(0x[0-9a-f]+)'/.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error('Multicall3 bytecode not found in viem');
  return m[1] as Hex;
}

type Compiled = Awaited<ReturnType<typeof compileDevnetContracts>>;
/** The Uniswap V3 factory's and pool's compiled artefacts, as published by `@uniswap/v3-core`. */
const UNISWAP_ARTIFACTS = {
  factory: '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
  pool: '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json',
};
const MIN_SQRT_RATIO = 4295128740n;
const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970341n;

/** Sends the devnet's deploys and transactions from the dev account, each waited for and checked. */
class DevnetDeployer {
  readonly chain: Chain;
  readonly account: PrivateKeyAccount = privateKeyToAccount(DEV_KEY);
  readonly pub: PublicClient;
  readonly wallet: WalletClient;

  constructor(
    url: string,
    private readonly compiled: Compiled,
  ) {
    this.chain = defineChain({
      id: DEVNET_CHAIN_ID,
      name: 'devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    this.pub = createPublicClient({ chain: this.chain, transport: http(url) });
    this.wallet = createWalletClient({ chain: this.chain, account: this.account, transport: http(url) });
  }

  get me(): Address {
    return this.account.address;
  }

  abiOf(name: string): Abi {
    return this.compiledContract(name).abi;
  }

  /** Deploys one of the devnet's own contracts. */
  deploy(name: string, args: readonly unknown[] = []): Promise<Address> {
    const c = this.compiledContract(name);
    return this.deployCode(c.abi, c.bytecode, args, name);
  }

  async deployCode(abi: Abi, bytecode: Hex, args: readonly unknown[], name: string): Promise<Address> {
    const hash = await this.wallet.deployContract({ abi, bytecode, args, gas: DEPLOY_GAS, chain: this.chain, account: this.account });
    const receipt = await this.pub.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (!receipt.contractAddress || receipt.status !== 'success') throw new Error(`deploying ${name} failed`);
    return getAddress(receipt.contractAddress);
  }

  /** Sends raw creation code (no ABI) and returns the created contract's address. */
  async create(data: Hex): Promise<Address> {
    const hash = await this.wallet.sendTransaction({ data, chain: this.chain, account: this.account, gas: TX_GAS });
    return getAddress((await this.pub.waitForTransactionReceipt({ hash, pollingInterval: 5 })).contractAddress ?? '0x');
  }

  async send(to: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<void> {
    const hash = await this.wallet.writeContract({
      address: to,
      abi,
      functionName,
      args,
      chain: this.chain,
      account: this.account,
      gas: TX_GAS,
    });
    const receipt = await this.pub.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== 'success') throw new Error(`${functionName} on ${to} reverted`);
  }

  private compiledContract(name: string): { abi: Abi; bytecode: Hex } {
    const c = this.compiled[name];
    if (!c) throw new Error(`no compiled contract ${name}`);
    return c;
  }
}

/** Multicall3: an eth_call of the creation code returns the runtime code, which is placed at the canonical address. */
async function placeMulticall3(d: DevnetDeployer): Promise<void> {
  const runtime = await d.pub.call({ data: viemMulticall3CreationCode() });
  if (!runtime.data) throw new Error('Multicall3 creation returned no code');
  await d.pub.request({ method: 'anvil_setCode' as 'eth_call', params: [MULTICALL3_ADDRESS, runtime.data] as never });
}

type Tokens = Pick<DevnetAddresses, 'usdc' | 'weth' | 'tkn' | 'b32' | 'nop'>;

/** The dev ERC-20s: a stablecoin stand-in, priced and unpriced 18-decimals tokens, one with bytes32 metadata. */
async function deployTokens(d: DevnetDeployer): Promise<Tokens> {
  return {
    usdc: await d.deploy('DevToken', ['Dev USD Coin', 'dUSDC', 6]),
    weth: await d.deploy('DevToken', ['Dev Wrapped Ether', 'dWETH', 18]),
    tkn: await d.deploy('DevToken', ['Dev Token', 'dTKN', 18]),
    b32: await d.deploy('DevBytes32Token', [stringToHex('Dev Bytes32 Token', { size: 32 }), stringToHex('dB32', { size: 32 })]),
    nop: await d.deploy('DevToken', ['Dev Unpriced', 'dNOP', 18]),
  };
}

/** Mints every dev token to the dev account and approves the pool helper to spend it. */
async function fundTokens(d: DevnetDeployer, tokens: Tokens, helper: Address): Promise<void> {
  const tokenAbi = d.abiOf('DevToken');
  for (const t of Object.values(tokens)) {
    await d.send(t, tokenAbi, 'mint', [d.me, 10n ** 30n]);
    await d.send(t, tokenAbi, 'approve', [helper, maxUint256]);
  }
}

type Oddities = Pick<DevnetAddresses, 'ethUsdFeed' | 'nft' | 'probe' | 'proxy1967' | 'proxy1167' | 'beacon' | 'proxyBeacon'>;

/** The feed, the NFT and the proxies of every kind the contract-info detection must recognise. */
async function deployOddities(d: DevnetDeployer): Promise<Oddities> {
  const ethUsdFeed = await d.deploy('DevAggregator', [8, 'ETH / USD', 3000n * 10n ** 8n]);
  const nft = await d.deploy('DevNFT', ['Dev Collectibles', 'dNFT']);
  const probe = await d.deploy('DevProbe');
  const proxy1967 = await d.deploy('DevProxy1967', [probe]);
  const beacon = await d.deploy('DevBeacon', [probe]);
  const proxyBeacon = await d.deploy('DevBeaconProxy', [beacon]);
  // EIP-1167 minimal proxy pointing at the probe: creation prefix + runtime with the address inlined.
  const proxy1167 = await d.create(
    `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${probe.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`,
  );
  await d.send(nft, d.abiOf('DevNFT'), 'mint', [d.me, 1n]);
  return { ethUsdFeed, nft, probe, proxy1967, proxy1167, beacon, proxyBeacon };
}

/** Creates and seeds Uniswap V3 pools through the factory and the dev pool helper. */
class PoolSeeder {
  readonly factory: Address;
  private readonly factoryAbi: Abi;
  private readonly poolAbi: Abi;
  private readonly decimals: Record<string, number>;

  constructor(
    private readonly d: DevnetDeployer,
    uniswap: Uniswap,
    private readonly helper: Address,
    tokens: Tokens,
  ) {
    this.factory = uniswap.factory;
    this.factoryAbi = uniswap.factoryAbi;
    this.poolAbi = uniswap.poolAbi;
    this.decimals = { [tokens.usdc]: 6, [tokens.weth]: 18, [tokens.tkn]: 18, [tokens.b32]: 18, [tokens.nop]: 18 };
  }

  /** createPool without initialize(): what anyone can do on a real chain. */
  async createPool(a: Address, b: Address, fee: number): Promise<Address> {
    await this.d.send(this.factory, this.factoryAbi, 'createPool', [a, b, fee]);
    return getAddress(
      (await this.d.pub.readContract({
        address: this.factory,
        abi: this.factoryAbi,
        functionName: 'getPool',
        args: [a, b, fee],
      })) as Address,
    );
  }

  /** Creates a pool, initialises it at `priceBperA` (tokenB per tokenA, human units) and mints full range. */
  async makePool(a: Address, b: Address, fee: number, priceBperA: [bigint, bigint], amountA: bigint): Promise<DevnetPool> {
    const pool = await this.createPool(a, b, fee);
    const [token0, token1] = a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];
    // The price as token1 per token0, num/den in human units.
    const [num, den] = token0 === a ? priceBperA : [priceBperA[1], priceBperA[0]];
    await this.d.send(pool, this.poolAbi, 'initialize', [encodeSqrtPriceX96(num, den, this.decimalsOf(token0), this.decimalsOf(token1))]);
    // Full-range liquidity L = sqrt(x*y) in raw units for the seeded amounts.
    const rawA = amountA * 10n ** BigInt(this.decimalsOf(a));
    const rawB = (amountA * priceBperA[0] * 10n ** BigInt(this.decimalsOf(b))) / priceBperA[1];
    const tickSpacing = fee === 500 ? 10 : 60;
    const range = tickSpacing === 10 ? FULL_RANGE_10 : FULL_RANGE_60;
    await this.d.send(this.helper, this.d.abiOf('DevPoolHelper'), 'mint', [pool, -range, range, isqrt(rawA * rawB)]);
    return { address: pool, token0, token1, fee, tickSpacing };
  }

  /** One exact-input swap of `amountIn` of `tokenIn`, so the price moves off its initial value. */
  async swap(pool: DevnetPool, tokenIn: Address, amountIn: bigint): Promise<void> {
    const zeroForOne = pool.token0 === tokenIn;
    await this.d.send(this.helper, this.d.abiOf('DevPoolHelper'), 'swap', [
      pool.address,
      zeroForOne,
      amountIn,
      zeroForOne ? MIN_SQRT_RATIO : MAX_SQRT_RATIO,
    ]);
  }

  private decimalsOf(token: Address): number {
    return this.decimals[token] ?? 18;
  }
}

interface Uniswap {
  factory: Address;
  factoryAbi: Abi;
  poolAbi: Abi;
}

/** The Uniswap V3 factory from `@uniswap/v3-core`'s own artefacts (what mainnet runs). */
async function deployUniswap(d: DevnetDeployer): Promise<Uniswap> {
  const read = (file: string) => JSON.parse(readFileSync(require.resolve(file), 'utf8')) as { abi: Abi; bytecode: Hex };
  const factory = read(UNISWAP_ARTIFACTS.factory);
  return {
    factory: await d.deployCode(factory.abi, factory.bytecode, [], 'UniswapV3Factory'),
    factoryAbi: factory.abi,
    poolAbi: read(UNISWAP_ARTIFACTS.pool).abi,
  };
}

/**
 * Seeds a fresh anvil: Multicall3 at its canonical address, dev ERC-20s (6 and 18 decimals, one
 * with bytes32 name/symbol), a Uniswap V3 factory and four pools with liquidity and one swap, an
 * ETH/USD feed, an ERC-721 and proxies.
 */
export async function seedDevnet(url: string, compiled: Compiled): Promise<DevnetAddresses> {
  // The order of deploys fixes every address (anvil derives them from the nonce): keep it.
  const d = new DevnetDeployer(url, compiled);
  await placeMulticall3(d);
  const factory = await deployUniswap(d);
  const tokens = await deployTokens(d);
  const helper = await d.deploy('DevPoolHelper');
  const oddities = await deployOddities(d);
  await fundTokens(d, tokens, helper);
  const uniswap = new PoolSeeder(d, factory, helper, tokens);
  const { usdc, weth, tkn, b32, nop } = tokens;
  const pools = {
    wethUsdc: await uniswap.makePool(weth, usdc, 3000, [3000n, 1n], 100n),
    tknWeth: await uniswap.makePool(tkn, weth, 3000, [1n, 100n], 10_000n),
    b32Usdc: await uniswap.makePool(b32, usdc, 500, [2n, 1n], 1000n),
    nopB32: await uniswap.makePool(nop, b32, 3000, [1n, 1n], 500n),
  };
  const uninitializedPool = await uniswap.createPool(nop, usdc, 10_000);
  await uniswap.swap(pools.wethUsdc, weth, 10n ** 18n);
  return {
    multicall3: MULTICALL3_ADDRESS,
    factory: uniswap.factory,
    helper,
    ...tokens,
    ...oddities,
    uninitializedPool,
    eoa: getAddress('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'),
    pools,
  };
}
