import { getAddress, isAddress, isHex, type AbiParameter } from 'viem';
import { CHAIN_ERROR_CODES, chainError } from '../errors';

type TupleParameter = AbiParameter & { components: readonly AbiParameter[] };

function fail(path: string, param: AbiParameter, message: string): never {
  throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `${path}${param.name ? ` (${param.name}: ${param.type})` : ` (${param.type})`}: ${message}`, { field: path, type: param.type });
}

function coerceInteger(path: string, param: AbiParameter, value: unknown, signed: boolean, bits: number): bigint {
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) fail(path, param, 'numbers must be safe integers; pass larger values as decimal strings');
    n = BigInt(value);
  } else if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
    n = BigInt(value.trim());
  } else if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value.trim())) {
    n = BigInt(value.trim());
  } else {
    fail(path, param, `expected an integer (number or decimal/0x string), got ${JSON.stringify(value)}`);
  }
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (n < min || n > max) fail(path, param, `${n} is out of range ${min}..${max}`);
  return n;
}

/** One JSON value → the viem value for an ABI parameter, or CR_BAD_ARGUMENT naming the argument. */
export function coerceValue(param: AbiParameter, value: unknown, path: string): unknown {
  const type = param.type;
  const arr = /^(.*)\[(\d*)\]$/.exec(type);
  if (arr) {
    if (!Array.isArray(value)) fail(path, param, 'expected an array');
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
    if (typeof value !== 'string' || !isAddress(value, { strict: false })) fail(path, param, `expected a 0x-prefixed 20-byte address, got ${JSON.stringify(value)}`);
    return getAddress(value);
  }
  if (type === 'bool') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    fail(path, param, `expected true or false, got ${JSON.stringify(value)}`);
  }
  if (type === 'string') {
    if (typeof value !== 'string') fail(path, param, `expected a string, got ${JSON.stringify(value)}`);
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length % 2 !== 0) fail(path, param, 'expected 0x-prefixed hex bytes');
    return value;
  }
  const fixedBytes = /^bytes(\d+)$/.exec(type);
  if (fixedBytes) {
    const size = Number(fixedBytes[1]);
    if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length !== 2 + size * 2) fail(path, param, `expected 0x-prefixed hex of exactly ${size} bytes`);
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
    if (typeof args !== 'object') throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, 'args: must be an array (ABI order) or an object keyed by input name', { field: 'args' });
    const obj = args as Record<string, unknown>;
    const unnamed = inputs.some((p) => !p.name);
    if (unnamed) throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args: ${signature} has unnamed inputs; pass args as an array`, { field: 'args' });
    const extra = Object.keys(obj).filter((k) => !inputs.some((p) => p.name === k));
    if (extra.length) throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args: ${signature} has no input named ${extra.map((e) => `"${e}"`).join(', ')}`, { field: 'args' });
    args = inputs.map((p) => {
      if (!(p.name! in obj)) throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args.${p.name} (${p.type}): missing`, { field: `args.${p.name}` });
      return obj[p.name!];
    });
  }
  const list = args as unknown[];
  if (list.length !== inputs.length) {
    throw chainError(CHAIN_ERROR_CODES.BAD_ARGUMENT, `args: ${signature} takes ${inputs.length} argument${inputs.length === 1 ? '' : 's'}, got ${list.length}`, { field: 'args', expected: inputs.length, got: list.length });
  }
  return inputs.map((p, i) => coerceValue(p, list[i], `args[${i}]`));
}
