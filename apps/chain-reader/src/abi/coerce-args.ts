import { getAddress, isHex, type AbiParameter } from 'viem';
import { CHAIN_ERROR_CODES, chainError, echoValue } from '../errors';
import { addressProblem } from '../services/parse-address';

/**
 * Most calldata bytes one read may encode to (32 KiB ≈ 1,000 uint256 array items). Providers cap
 * request bodies and eth_call gas, and one read is batched with others into one aggregate3, so a
 * larger read is refused up front, naming `args`, instead of failing at the RPC as an "outage".
 */
export const MAX_CALLDATA_BYTES = 32_768;
/** Longest decimal/hex integer text accepted (int256 needs 78 digits); longer is refused before parsing. */
const MAX_INTEGER_CHARS = 80;

type TupleParameter = AbiParameter & { components: readonly AbiParameter[] };

function fail(
  path: string,
  param: AbiParameter,
  message: string,
  code: 'CR_BAD_ARGUMENT' | 'CR_BAD_CHECKSUM' | 'CR_CALLDATA_TOO_LARGE' = CHAIN_ERROR_CODES.BAD_ARGUMENT,
): never {
  throw chainError(code, `${path}${param.name ? ` (${param.name}: ${param.type})` : ` (${param.type})`}: ${message}`, {
    field: path,
    type: param.type,
  });
}

function coerceInteger(path: string, param: AbiParameter, value: unknown, signed: boolean, bits: number): bigint {
  let n: bigint;
  if (typeof value === 'string' && value.trim().length > MAX_INTEGER_CHARS) {
    fail(path, param, `integer text of ${value.trim().length} characters is longer than any ${param.type} (at most ${MAX_INTEGER_CHARS})`);
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) fail(path, param, 'numbers must be safe integers; pass larger values as decimal strings');
    n = BigInt(value);
  } else if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
    n = BigInt(value.trim());
  } else if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value.trim())) {
    n = BigInt(value.trim());
  } else {
    fail(path, param, `expected an integer (number or decimal/0x string), got ${echoValue(value)}`);
  }
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (n < min || n > max) fail(path, param, `${echoValue(n)} is out of range ${min}..${max}`);
  return n;
}

/** One JSON value → the viem value for an ABI parameter, or CR_BAD_ARGUMENT naming the argument. */
export function coerceValue(param: AbiParameter, value: unknown, path: string): unknown {
  const type = param.type;
  const arr = /^(.*)\[(\d*)\]$/.exec(type);
  if (arr) {
    if (!Array.isArray(value)) fail(path, param, 'expected an array');
    // Every item takes at least one 32-byte word: an array this long cannot fit the calldata bound.
    if (value.length > MAX_CALLDATA_BYTES / 32) {
      fail(
        path,
        param,
        `${value.length} items cannot fit in ${MAX_CALLDATA_BYTES} bytes of calldata (at most ${MAX_CALLDATA_BYTES / 32} items)`,
        CHAIN_ERROR_CODES.CALLDATA_TOO_LARGE,
      );
    }
    if (arr[2] !== '' && value.length !== Number(arr[2])) fail(path, param, `expected exactly ${arr[2]} items, got ${value.length}`);
    const inner = { ...param, type: arr[1]!, name: '' } as AbiParameter;
    return value.map((v, i) => coerceValue(inner, v, `${path}[${i}]`));
  }
  if (type === 'tuple') {
    const components = (param as TupleParameter).components ?? [];
    if (Array.isArray(value)) {
      if (value.length !== components.length) fail(path, param, `expected ${components.length} tuple fields, got ${value.length}`);
      return components.map((c, i) => coerceValue(c, value[i], `${path}.${c.name || i}`));
    }
    if (typeof value === 'object' && value !== null) {
      const obj = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      components.forEach((c, i) => {
        const k = c.name || String(i);
        if (!(k in obj)) fail(path, param, `missing tuple field "${k}"`);
        out[k] = coerceValue(c, obj[k], `${path}.${k}`);
      });
      return components.every((c) => c.name) ? out : components.map((c, i) => out[c.name || String(i)]);
    }
    fail(path, param, 'expected an object or array for a tuple');
  }
  if (type === 'address') {
    const problem = addressProblem(value);
    if (problem)
      fail(
        path,
        param,
        problem.code === CHAIN_ERROR_CODES.BAD_CHECKSUM
          ? problem.message
          : `expected a 0x-prefixed 20-byte address, got ${echoValue(value)}`,
        problem.code === CHAIN_ERROR_CODES.BAD_CHECKSUM ? problem.code : CHAIN_ERROR_CODES.BAD_ARGUMENT,
      );
    return getAddress((value as string).trim());
  }
  if (type === 'bool') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    fail(path, param, `expected true or false, got ${echoValue(value)}`);
  }
  if (type === 'string') {
    if (typeof value !== 'string') fail(path, param, `expected a string, got ${echoValue(value)}`);
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length % 2 !== 0)
      fail(path, param, 'expected 0x-prefixed hex bytes');
    return value;
  }
  const fixedBytes = /^bytes(\d+)$/.exec(type);
  if (fixedBytes) {
    const size = Number(fixedBytes[1]);
    if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length !== 2 + size * 2)
      fail(path, param, `expected 0x-prefixed hex of exactly ${size} bytes`);
    return value;
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) return coerceInteger(path, param, value, int[1] !== 'u', int[2] ? Number(int[2]) : 256);
  return fail(path, param, `unsupported ABI type ${type}`);
}

/**
 * Validates and converts tool `args` (an array in ABI order, or an object keyed by input
 * name) to viem values. @throws CR_BAD_ARGUMENT naming the argument and its type.
 */
export function coerceArgs(inputs: readonly AbiParameter[], args: unknown, signature: string): unknown[] {
  if (args === undefined || args === null) args = [];
  if (!Array.isArray(args)) {
    if (typeof args !== 'object')
      throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, 'args: must be an array (ABI order) or an object keyed by input name', {
        field: 'args',
      });
    const obj = args as Record<string, unknown>;
    const unnamed = inputs.some((p) => !p.name);
    if (unnamed)
      throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args: ${signature} has unnamed inputs; pass args as an array`, { field: 'args' });
    const extra = Object.keys(obj).filter((k) => !inputs.some((p) => p.name === k));
    if (extra.length)
      throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args: ${signature} has no input named ${extra.map((e) => `"${e}"`).join(', ')}`, {
        field: 'args',
      });
    args = inputs.map((p) => {
      if (!(p.name! in obj))
        throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args.${p.name} (${p.type}): missing`, { field: `args.${p.name}` });
      return obj[p.name!];
    });
  }
  const list = args as unknown[];
  if (list.length !== inputs.length) {
    throw chainError(
      CHAIN_ERROR_CODES.BAD_ARGUMENT,
      `args: ${signature} takes ${inputs.length} argument${inputs.length === 1 ? '' : 's'}, got ${list.length}`,
      { field: 'args', expected: inputs.length, got: list.length },
    );
  }
  return inputs.map((p, i) => coerceValue(p, list[i], `args[${i}]`));
}
