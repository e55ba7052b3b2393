import { decodeFunctionResult, encodeFunctionData, getAddress, parseAbi, type Address, type Hex } from 'viem';
import type { BlockRef, ChainRpc } from '../rpc/chain-rpc';

/** keccak256('eip1967.proxy.implementation') - 1 */
export const EIP1967_IMPLEMENTATION_SLOT: Hex = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
/** keccak256('eip1967.proxy.beacon') - 1: the beacon whose implementation() the proxy delegates to. */
export const EIP1967_BEACON_SLOT: Hex = '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50';
const EIP1167_RUNTIME = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/i;
const BEACON_ABI = parseAbi(['function implementation() view returns (address)']);
const IMPLEMENTATION_CALL = encodeFunctionData({ abi: BEACON_ABI, functionName: 'implementation' });

/** A detected proxy and the code it runs. */
export interface ProxyInfo {
  standard: 'eip1967' | 'eip1967_beacon' | 'eip1167';
  implementation: string;
  /** The beacon contract, for `eip1967_beacon`. */
  beacon?: string;
}

function slotAddress(word: Hex | undefined): Address | undefined {
  if (!word || word === '0x' || BigInt(word) === 0n) return undefined;
  return getAddress(`0x${word.slice(-40)}`);
}

/**
 * The proxy standard of `address` at `block`, or null: an EIP-1167 clone (from its code), an
 * EIP-1967 proxy (implementation slot), or an EIP-1967 beacon proxy (beacon slot, then the
 * beacon's implementation()). A beacon that does not answer implementation() is not a proxy.
 */
export async function detectProxy(rpc: ChainRpc, address: Address, block: BlockRef, code?: Hex): Promise<ProxyInfo | null> {
  const [runtime, implWord, beaconWord] = await Promise.all([
    code ?? rpc.getCode(address, block),
    rpc.getStorageAt(address, EIP1967_IMPLEMENTATION_SLOT, block),
    rpc.getStorageAt(address, EIP1967_BEACON_SLOT, block),
  ]);
  if (runtime === '0x') return null;
  const clone = EIP1167_RUNTIME.exec(runtime);
  if (clone) return { standard: 'eip1167', implementation: getAddress(`0x${clone[1]}`) };
  const impl = slotAddress(implWord);
  if (impl) return { standard: 'eip1967', implementation: impl };
  const beacon = slotAddress(beaconWord);
  if (beacon) {
    const ret = await rpc.call(beacon, IMPLEMENTATION_CALL, block).catch(() => undefined);
    if (ret && ret !== '0x') {
      try {
        const implementation = decodeFunctionResult({ abi: BEACON_ABI, functionName: 'implementation', data: ret });
        if (BigInt(implementation) !== 0n) return { standard: 'eip1967_beacon', implementation: getAddress(implementation), beacon };
      } catch {
        // not an implementation() answer: not a beacon
      }
    }
  }
  return null;
}
