import { decodeAbiParameters, hexToString, type Hex } from 'viem';

/** A `string` return value, or a `bytes32` one (early tokens), as text; null when neither decodes. */
export function decodeText(data: Hex | undefined): string | null {
  if (!data || data === '0x') return null;
  try {
    const [s] = decodeAbiParameters([{ type: 'string' }], data);
    return s;
  } catch {
    // not an ABI string: try bytes32 below
  }
  if (data.length === 66) {
    const text = hexToString(data, { size: 32 }).replace(/\0+$/, '');
    return /^[\x20-\x7e]*$/.test(text) && text.length > 0 ? text : null;
  }
  return null;
}
