import { getAddress, isAddress, type Address } from 'viem';
import { CHAIN_ERROR_CODES, chainError, echoValue } from '../errors';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Why `value` is not a usable address, or undefined when it is. EIP-55: an all-lower-case or
 * all-upper-case address carries no checksum and is accepted; a mixed-case one must match its
 * checksum, so a one-character typo is caught instead of read as some other (empty) account.
 */
export function addressProblem(value: unknown): { code: 'CR_BAD_ADDRESS' | 'CR_BAD_CHECKSUM'; message: string } | undefined {
  if (typeof value !== 'string' || !HEX_ADDRESS.test(value.trim())) {
    return { code: CHAIN_ERROR_CODES.BAD_ADDRESS, message: `${echoValue(value)} is not a 0x-prefixed 20-byte hex address` };
  }
  const hex = value.trim().slice(2);
  const mixed = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixed && !isAddress(value.trim(), { strict: true })) {
    return {
      code: CHAIN_ERROR_CODES.BAD_CHECKSUM,
      message: `${value.trim()} has a bad EIP-55 checksum (mixed case that does not match; the checksummed form of these hex digits is ${getAddress(value.trim().toLowerCase())}); check for a typo, or pass it all lower-case to skip the check`,
    };
  }
  return undefined;
}

/** A checksummed address from tool input (EIP-55 checked when mixed case). @throws CR_BAD_ADDRESS / CR_BAD_CHECKSUM naming the field. */
export function parseAddress(value: unknown, field = 'address'): Address {
  const problem = addressProblem(value);
  if (problem) throw chainError(problem.code, `${field}: ${problem.message}`, { field });
  return getAddress((value as string).trim());
}
