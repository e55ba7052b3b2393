import { toFunctionSelector, toEventSelector, type Abi, type Hex } from 'viem';
import { COMMON_ABI } from '../abi/common-abis';
import type { WhatsabiFindings } from './whatsabi-thread';

/** What bytecode alone tells about a contract's interface. */
export interface BytecodeAnalysis {
  code_hash: Hex;
  code_size: number;
  /** Function selectors found in the dispatcher. */
  functions: number;
  /** Selectors we know to be view/pure (standard interfaces) — bytecode alone cannot tell. */
  view_functions: number;
  write_functions: number;
  /** Selectors whose mutability is unknown without an ABI. */
  unclassified_functions: number;
  events: number;
  selectors: string[];
}

const KNOWN_MUTABILITY = new Map<string, 'view' | 'write'>();
for (const item of COMMON_ABI) {
  if (item.type !== 'function') continue;
  const mutability: string = item.stateMutability;
  KNOWN_MUTABILITY.set(toFunctionSelector(item), mutability === 'view' || mutability === 'pure' ? 'view' : 'write');
}

/**
 * Interface counts from whatsabi's findings on runtime bytecode. whatsabi's mutability guesses
 * are unreliable for solc ≥0.8 output, so view/write is only claimed for selectors of known
 * standard functions; the rest are `unclassified`.
 */
export function summarizeBytecode(code: Hex, codeHash: Hex, findings: WhatsabiFindings): BytecodeAnalysis {
  const selectors = [...findings.selectors].sort();
  let view = 0;
  let write = 0;
  for (const s of selectors) {
    const m = KNOWN_MUTABILITY.get(s);
    if (m === 'view') view += 1;
    else if (m === 'write') write += 1;
  }
  return {
    code_hash: codeHash,
    code_size: (code.length - 2) / 2,
    functions: selectors.length,
    view_functions: view,
    write_functions: write,
    unclassified_functions: selectors.length - view - write,
    events: findings.events.length,
    selectors,
  };
}

/** Counts of an ABI's view functions, write functions and events. */
export function countAbi(abi: Abi): { functions: number; view_functions: number; write_functions: number; events: number } {
  let view = 0;
  let write = 0;
  const events = new Set<string>();
  for (const item of abi) {
    if (item.type === 'function') {
      if (item.stateMutability === 'view' || item.stateMutability === 'pure') view += 1;
      else write += 1;
    } else if (item.type === 'event') {
      events.add(toEventSelector(item));
    }
  }
  return { functions: view + write, view_functions: view, write_functions: write, events: events.size };
}
