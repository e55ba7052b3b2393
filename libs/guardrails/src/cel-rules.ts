import type { CelEngine, CelProgram } from './cel-engine';
import type { CompiledInterceptor, Verdict } from './compiled-guardrails';
import type { CelConfig, GuardrailsIssue } from './guardrails-schema';

interface CompiledRule {
  name: string;
  message: string;
  program: CelProgram;
}

/**
 * Compiles a `cel` interceptor's rules. A rule is a deny condition: when it evaluates to `true`
 * the call is denied with the rule's message; a non-bool value or an evaluation error is an
 * interceptor failure (its `failOpen` decides). Compile errors name the rule and the position.
 */
export function compileCelRules(
  rules: CelConfig['rules'],
  engine: CelEngine,
  path: string,
  errors: GuardrailsIssue[],
): CompiledInterceptor['run'] | undefined {
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, i) => {
    const result = engine.compile(rule.expr);
    if (result.ok) compiled.push({ name: rule.name, message: rule.message, program: result.program });
    else {
      const at = result.position ? ` at line ${result.position.line}, column ${result.position.column}` : '';
      errors.push({ path: `${path}.${i}.expr`, message: `rule "${rule.name}"${at}: ${result.message}` });
    }
  });
  if (compiled.length !== rules.length) return undefined;
  return (_payload, ctx): Verdict => {
    const vars = { caller: ctx.caller, tool: { name: ctx.target, server: ctx.server }, args: ctx.args, now: ctx.now };
    for (const rule of compiled) {
      const value = rule.program.evaluate(vars);
      if (typeof value !== 'boolean') throw new Error(`rule "${rule.name}" returned ${typeof value}, not a bool`);
      if (value) return { kind: 'deny', reason: rule.message };
    }
    return { kind: 'allow' };
  };
}
