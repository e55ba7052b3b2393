import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEV_KEY, type Devnet } from './start-devnet';

const MIN_SQRT = 4295128740n;
const MAX_SQRT = 1461446703485210103287273052203988822378723970341n;

/**
 * One exact-input swap of `amountIn` dWETH into the dWETH/dUSDC pool (a new block that moves
 * the price), through the seeded helper with dev account #0. Tests and the bench use it.
 * @returns the block the swap was mined in.
 */
export async function swapWethForUsdc(
  devnet: Pick<Devnet, 'rpcUrl' | 'chainId' | 'addresses' | 'abis'>,
  amountIn: bigint,
): Promise<bigint> {
  const chain = defineChain({
    id: devnet.chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [devnet.rpcUrl] } },
  });
  const account = privateKeyToAccount(DEV_KEY);
  const wallet = createWalletClient({ chain, account, transport: http(devnet.rpcUrl) });
  const pub = createPublicClient({ chain, transport: http(devnet.rpcUrl) });
  const pool = devnet.addresses.pools.wethUsdc;
  const zeroForOne = pool.token0 === devnet.addresses.weth;
  const abi = devnet.abis['DevPoolHelper'];
  if (!abi) throw new Error('DevPoolHelper ABI missing');
  const hash: Hex = await wallet.writeContract({
    address: devnet.addresses.helper,
    abi,
    functionName: 'swap',
    args: [pool.address, zeroForOne, amountIn, zeroForOne ? MIN_SQRT : MAX_SQRT],
    chain,
    account,
    gas: 10_000_000n,
  });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 5 });
  if (receipt.status !== 'success') throw new Error('devnet swap reverted');
  return receipt.blockNumber;
}
