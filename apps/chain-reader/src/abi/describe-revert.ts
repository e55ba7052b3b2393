import { decodeErrorResult, type Abi, type Hex } from 'viem';

const PANIC_REASONS: Record<number, string> = {
  0x01: 'assertion failed',
  0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero',
  0x21: 'invalid enum value',
  0x22: 'bad storage byte array',
  0x31: 'pop on empty array',
  0x32: 'array index out of bounds',
  0x41: 'out of memory',
  0x51: 'call to an uninitialised function',
};

/** Decoded revert: `Error(string)` reasons, `Panic(uint256)` codes, custom errors from `abi`. */
export interface RevertInfo {
  reason: string;
  kind: 'error' | 'panic' | 'custom' | 'unknown' | 'empty';
  error_name?: string;
  error_args?: unknown[];
  data: Hex;
}

function jsonArg(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonArg);
  return v;
}

/** Turns revert data into a readable reason. */
export function describeRevert(data: Hex, abi: Abi): RevertInfo {
  if (!data || data === '0x') return { reason: 'reverted without a reason', kind: 'empty', data: '0x' };
  try {
    const decoded = decodeErrorResult({ abi, data });
    const args = (decoded.args ?? []) as readonly unknown[];
    if (decoded.errorName === 'Error') return { reason: String(args[0]), kind: 'error', data };
    if (decoded.errorName === 'Panic') {
      const code = Number(args[0]);
      return { reason: `panic 0x${code.toString(16).padStart(2, '0')} (${PANIC_REASONS[code] ?? 'unknown panic'})`, kind: 'panic', data };
    }
    const rendered = args.map((a) => String(jsonArg(a))).join(', ');
    return {
      reason: `${decoded.errorName}(${rendered})`,
      kind: 'custom',
      error_name: decoded.errorName,
      error_args: args.map(jsonArg),
      data,
    };
  } catch {
    return { reason: `custom error ${data.slice(0, 10)} (not in the ABI)`, kind: 'unknown', data };
  }
}
