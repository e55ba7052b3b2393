import { getAddress, type AbiParameter } from 'viem';

type TupleParameter = AbiParameter & { components: readonly AbiParameter[] };

/** A decoded ABI value as JSON: integers as decimal strings, addresses checksummed, tuples as named objects. */
export function toJsonSafe(param: AbiParameter, value: unknown): unknown {
  const arr = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (arr && Array.isArray(value)) {
    const inner = { ...param, type: arr[1]!, name: '' } as AbiParameter;
    return value.map((v) => toJsonSafe(inner, v));
  }
  if (param.type === 'tuple') {
    const components = (param as TupleParameter).components ?? [];
    return namedValues(components, value);
  }
  if (typeof value === 'bigint' || typeof value === 'number') return value.toString();
  if (param.type === 'address' && typeof value === 'string') return getAddress(value);
  return value;
}

/** Several values (a tuple or a function's outputs): an object by name when all are named, else an array. */
export function namedValues(params: readonly AbiParameter[], value: unknown): unknown {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? params.map((p, i) => (value as Record<string, unknown>)[p.name || String(i)])
      : [value];
  if (params.length > 0 && params.every((p) => p.name)) {
    const out: Record<string, unknown> = {};
    params.forEach((p, i) => {
      out[p.name!] = toJsonSafe(p, list[i]);
    });
    return out;
  }
  return params.map((p, i) => toJsonSafe(p, list[i]));
}

/** A function result as JSON: null for no outputs, the bare value for one, else namedValues. */
export function outputsToJson(outputs: readonly AbiParameter[], decoded: unknown): unknown {
  if (outputs.length === 0) return null;
  if (outputs.length === 1) return toJsonSafe(outputs[0]!, decoded);
  return namedValues(outputs, decoded);
}
