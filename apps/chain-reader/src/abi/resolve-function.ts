import { parseAbi, parseAbiItem, toFunctionSignature, type Abi, type AbiFunction } from 'viem';
import { CHAIN_ERROR_CODES, chainError } from '../errors';

/** Where the function definition came from. */
export type FunctionSource = 'argument' | 'registered' | 'common';

export interface ResolvedFunction {
  fn: AbiFunction;
  /** The ABI used to decode custom errors for this call. */
  abi: Abi;
  source: FunctionSource;
}

/** `name(type1,type2)` of a function item. */
export function functionSignature(fn: AbiFunction): string {
  return toFunctionSignature(fn);
}

function normalizeSig(s: string): string {
  return s.replace(/\s+/g, '').replace(/^function/, '');
}

/**
 * Parses the `abi` tool argument: a JSON ABI array, a human-readable signature, or an array
 * of human-readable signatures. @throws CR_BAD_ABI naming what is wrong.
 */
export function parseAbiArgument(abi: unknown): Abi {
  try {
    if (typeof abi === 'string') {
      const text = abi.trim();
      if (text.startsWith('[') || text.startsWith('{')) return parseAbiArgument(JSON.parse(text) as unknown);
      return parseAbi(
        text
          .split(/\n|;/)
          .map((l) => l.trim())
          .filter(Boolean),
      );
    }
    if (Array.isArray(abi)) {
      if (abi.every((x) => typeof x === 'string')) return parseAbi(abi as string[]);
      for (const [i, item] of abi.entries()) {
        if (typeof item !== 'object' || item === null || typeof (item as { type?: unknown }).type !== 'string') {
          throw new Error(`abi[${i}] must be an ABI fragment object with a "type"`);
        }
      }
      return abi as Abi;
    }
    if (typeof abi === 'object' && abi !== null) return [abi] as unknown as Abi;
  } catch (err) {
    throw chainError(CHAIN_ERROR_CODES.BAD_ABI, `abi: ${(err as Error).message.split('\n')[0]}`, { field: 'abi' }, err);
  }
  throw chainError(CHAIN_ERROR_CODES.BAD_ABI, 'abi: must be a JSON ABI array, a fragment object or human-readable signatures', {
    field: 'abi',
  });
}

function functionsOf(abi: Abi): AbiFunction[] {
  return abi.filter((x): x is AbiFunction => x.type === 'function');
}

function pick(abi: Abi, functionName: string, argCount: number | undefined): AbiFunction | undefined | 'ambiguous' {
  const fns = functionsOf(abi);
  if (functionName.includes('(')) {
    const want = normalizeSig(functionName);
    return fns.find((f) => normalizeSig(functionSignature(f)) === want);
  }
  const named = fns.filter((f) => f.name === functionName);
  if (named.length <= 1) return named[0];
  const byCount = argCount === undefined ? [] : named.filter((f) => f.inputs.length === argCount);
  return byCount.length === 1 ? byCount[0] : 'ambiguous';
}

/**
 * Finds the function to call: a full human-readable `function_name` stands alone; otherwise
 * it is looked up (by name, or by `name(types)` for overloads) in the passed ABI, else the
 * ABI registered for the address, else the common standard interfaces.
 * @throws CR_UNKNOWN_FUNCTION / CR_AMBIGUOUS_FUNCTION / CR_BAD_ABI
 */
export function resolveFunction(
  functionName: string,
  sources: { argument?: Abi; registered?: Abi; common: Abi },
  argCount: number | undefined,
): ResolvedFunction {
  const trimmed = functionName.trim();
  if (/^function\s/.test(trimmed)) {
    let item: unknown;
    try {
      item = parseAbiItem(trimmed);
    } catch (err) {
      throw chainError(
        CHAIN_ERROR_CODES.BAD_ABI,
        `function_name: cannot parse "${trimmed}": ${(err as Error).message.split('\n')[0]}`,
        { field: 'function_name' },
        err,
      );
    }
    const fn = item as AbiFunction;
    return { fn, abi: [...(sources.argument ?? []), fn], source: 'argument' };
  }
  const order: [FunctionSource, Abi | undefined][] = sources.argument
    ? [['argument', sources.argument]]
    : [
        ['registered', sources.registered],
        ['common', sources.common],
      ];
  for (const [source, abi] of order) {
    if (!abi) continue;
    const found = pick(abi, trimmed, argCount);
    if (found === 'ambiguous') {
      const sigs = functionsOf(abi)
        .filter((f) => f.name === trimmed)
        .map(functionSignature);
      throw chainError(CHAIN_ERROR_CODES.AMBIGUOUS_FUNCTION, `function_name: "${trimmed}" is overloaded; pass one of ${sigs.join(', ')}`, {
        field: 'function_name',
        candidates: sigs,
      });
    }
    if (found) return { fn: found, abi, source };
  }
  const searched = sources.argument
    ? 'the abi argument'
    : sources.registered
      ? 'the registered ABI or the standard interfaces'
      : 'the standard interfaces (no ABI is registered for this address)';
  throw chainError(
    CHAIN_ERROR_CODES.UNKNOWN_FUNCTION,
    `function_name: "${trimmed}" is not in ${searched}; pass its ABI in "abi" or a full signature such as "function ${trimmed.split('(')[0]}(...) view returns (...)"`,
    { field: 'function_name' },
  );
}
