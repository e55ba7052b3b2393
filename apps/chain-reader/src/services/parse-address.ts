import { getAddress, isAddress, type Address } from 'viem';
import { CHAIN_ERROR_CODES, chainError } from '../errors';

/** A checksummed address from tool input; any-case hex accepted. @throws CR_BAD_ADDRESS naming the field. */
export function parseAddress(value: unknown, field = 'address'): Address {
  if (typeof value !== 'string' || !isAddress(value.trim(), { strict: false })) {
    const shown = typeof value === 'string' ? `"${value.slice(0, 60)}"` : JSON.stringify(value) ?? 'undefined';
    throw chainError(CHAIN_ERROR_CODES.BAD_ADDRESS, `${field}: ${shown} is not a 0x-prefixed 20-byte hex address`, { field });
  }
  return getAddress(value.trim());
}
