import type { CelVariables } from './cel-engine';
import { celJsEngine } from './cel-js-engine';
import { compileGuardrails } from './compile-guardrails';
import { runChain } from './run-chain';

const engine = celJsEngine();
const vars = (groups: string[], amount: unknown): CelVariables => ({
  caller: { subject: 'u1', scopes: ['mcp:tools'], groups, client: 'claude' },
  tool: { name: 'refund', server: 'billing' },
  args: { amount },
  now: new Date('2026-12-06T12:00:00Z'),
});
const evaluate = (expr: string, v: CelVariables) => {
  const c = engine.compile(expr);
  if (!c.ok) throw new Error(c.message);
  return c.program.evaluate(v);
};

describe('CEL rules on @marcbachmann/cel-js', () => {
  const rule = 'tool.name == "refund" && args.amount > 500 && !("finance" in caller.groups)';

  it("evaluates the issue's rule over the caller's groups, the tool and JSON numbers", () => {
    expect(evaluate(rule, vars(['support'], 900))).toBe(true);
    expect(evaluate(rule, vars(['finance'], 900))).toBe(false);
    expect(evaluate(rule, vars(['support'], 20))).toBe(false);
    expect(evaluate('now.getHours("UTC") == 12 && "mcp:tools" in caller.scopes && caller.client == "claude"', vars([], 1))).toBe(true);
  });

  it.each([
    ['args.amount >', 'line 1, column 14'],
    ['tool.nme == "x"', 'line 1, column 6'],
    ['tool.name', 'line 1, column 1'],
    ['args.s.matches("^(a+)+$")', 'line 1, column 1'],
    ['args.a.all(x, args.a.exists(y, y == x))', 'line 1, column 15'],
  ])('refuses %j at publish time, naming the position', (expr, where) => {
    const c = engine.compile(expr);
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(`line ${c.position?.line}, column ${c.position?.column}`).toBe(where);
  });

  it('caps the expression size (AST nodes)', () => {
    const c = engine.compile(Array.from({ length: 200 }, (_, i) => `args.a == ${i}`).join(' || '));
    expect(c.ok || c.message).toMatch(/AST|nodes|limit/i);
  });

  it('denies with the rule message when a rule is true, and treats an evaluation error as a failure (failOpen decides)', async () => {
    const config = (failOpen: boolean) => ({
      interceptors: [
        {
          name: 'policy',
          type: 'validation',
          failOpen,
          hook: { events: ['tools/call'], phase: 'request' },
          use: { builtin: 'cel', rules: [{ name: 'big-refunds', expr: rule, message: 'refunds over 500 need finance' }] },
        },
      ],
    });
    const ctx = (args: Record<string, unknown>, groups: string[]) => ({
      point: 'tools/call:request' as const,
      event: 'tools/call' as const,
      server: 'billing',
      target: 'refund',
      caller: { subject: 'u1', scopes: [], groups, client: 'c' },
      args,
      now: new Date(),
    });
    const deps = { webhook: () => Promise.reject(new Error('unused')), record: () => undefined };
    const closed = compileGuardrails(config(false));
    const open = compileGuardrails(config(true));
    if (!closed.ok || !open.ok) throw new Error('did not compile');
    const chain = closed.compiled.chains['tools/call:request']!;
    expect(await runChain(chain, {}, ctx({ amount: 900 }, ['support']), deps)).toEqual({
      kind: 'deny',
      interceptor: 'policy',
      reason: 'refunds over 500 need finance',
    });
    expect(await runChain(chain, {}, ctx({ amount: 900 }, ['finance']), deps)).toEqual({ kind: 'pass', payload: {} });
    expect(await runChain(chain, {}, ctx({}, ['support']), deps)).toEqual({
      kind: 'deny',
      interceptor: 'policy',
      reason: 'interceptor unavailable',
    });
    expect(await runChain(open.compiled.chains['tools/call:request']!, {}, ctx({}, ['support']), deps)).toEqual({
      kind: 'pass',
      payload: {},
    });
  });
});
