import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import type { CelCompiled, CelEngine } from './cel-engine';

/**
 * Parse-time bounds on a rule (CEL is not Turing-complete, but a tenant's rule runs on every
 * call): few AST nodes, shallow nesting, and no comprehension inside another, so evaluating a
 * rule is linear in the size of the arguments it reads.
 */
export const CEL_LIMITS = { maxAstNodes: 256, maxDepth: 24, maxListElements: 64, maxMapEntries: 64, maxCallArguments: 8 } as const;
const MAX_COMPREHENSION_NESTING = 1;
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
/** Functions refused in rules: `matches` runs a pattern on V8's backtracking engine over caller input. */
const REFUSED = new Map([
  ['matches', 'matches() is not available (a backtracking regex over caller input); use contains, startsWith or endsWith'],
]);

let shared: Environment | undefined;

/** The rule environment: the variables of issue 46 item 3, typed, so a misspelt field fails at publish. */
function environment(): Environment {
  shared ??= new Environment({ limits: { ...CEL_LIMITS } })
    .registerVariable('caller', { schema: { subject: 'string', scopes: 'list<string>', groups: 'list<string>', client: 'string' } })
    .registerVariable('tool', { schema: { name: 'string', server: 'string' } })
    .registerVariable('args', 'map<string, dyn>')
    .registerVariable('now', 'google.protobuf.Timestamp');
  return shared;
}

/** CEL on `@marcbachmann/cel-js`: parsed and type-checked once per publish, evaluated per call. */
export function celJsEngine(): CelEngine {
  return {
    compile(expr: string): CelCompiled {
      const env = environment();
      let parsed: ReturnType<Environment['parse']>;
      try {
        parsed = env.parse(expr);
      } catch (err) {
        return failure(expr, err);
      }
      const checked = parsed.check();
      if (!checked.valid) return failure(expr, checked.error);
      if (checked.type !== 'bool' && checked.type !== 'dyn')
        return { ok: false, message: `must evaluate to a bool, not ${checked.type}`, position: at(expr, 0) };
      const refusal = refuse(parsed.ast, 0);
      if (refusal) return { ok: false, message: refusal.message, position: at(expr, refusal.offset) };
      return { ok: true, program: { evaluate: (vars) => parsed(vars) as unknown } };
    },
  };
}

function failure(expr: string, err: unknown): CelCompiled {
  const e = err as { summary?: string; message?: string; range?: { start: number }; node?: { pos?: number } } | undefined;
  const message = (e?.summary ?? e?.message ?? String(err)).split('\n')[0]!;
  return { ok: false, message, position: at(expr, e?.range?.start ?? e?.node?.pos ?? 0) };
}

/** A refused function, or a comprehension nested deeper than allowed, with its offset. */
function refuse(node: unknown, nesting: number): { message: string; offset: number } | undefined {
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = refuse(child, nesting);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null || !('op' in node)) return undefined;
  const n = node as ASTNode;
  let depth = nesting;
  if ((n.op === 'call' || n.op === 'rcall') && Array.isArray(n.args)) {
    const name = String(n.args[0]);
    const refused = REFUSED.get(name);
    if (refused) return { message: refused, offset: n.start };
    if (n.op === 'rcall' && COMPREHENSIONS.has(name) && ++depth > MAX_COMPREHENSION_NESTING) {
      return {
        message: `${name}() inside another comprehension is not allowed (evaluation cost would grow with the arguments' size squared)`,
        offset: n.start,
      };
    }
  }
  return refuse(n.args, depth);
}

/** 1-based line and column of an offset in the expression. */
function at(expr: string, offset: number): { line: number; column: number } {
  const before = expr.slice(0, Math.max(0, Math.min(offset, expr.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}
