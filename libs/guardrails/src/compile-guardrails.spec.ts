import type { CelEngine } from './cel-engine';
import { compileGuardrails } from './compile-guardrails';

const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
const pii = { name: 'pii', type: 'mutation', hook: { events: ['tools/call'], phase: 'response' }, use: { builtin: 'pii' } };

/** A stand-in engine that understands `true`/`false` and reports anything else at column 1. */
const tinyCel: CelEngine = {
  compile: (expr) =>
    expr === 'true' || expr === 'false'
      ? { ok: true, program: { evaluate: () => expr === 'true' } }
      : { ok: false, message: `unexpected token "${expr[0]}"`, position: { line: 1, column: 1 } },
};

describe('compileGuardrails', () => {
  it('compiles an absent or empty section to an empty chain set', () => {
    for (const raw of [undefined, {}, { interceptors: [] }]) {
      const r = compileGuardrails(raw);
      expect(r).toEqual({ ok: true, compiled: { chains: {}, size: 0 } });
    }
  });

  it('files each interceptor under the hook points it names, in document order', () => {
    const both = { ...pii, name: 'both', hook: { events: ['tools/call', 'resources/read'], phase: 'both' } };
    const r = compileGuardrails({ interceptors: [pii, both] });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.compiled.chains['tools/call:response']?.map((i) => i.name)).toEqual(['pii', 'both']);
    expect(r.compiled.chains['tools/call:request']?.map((i) => i.name)).toEqual(['both']);
    expect(r.compiled.chains['resources/read:response']?.map((i) => i.name)).toEqual(['both']);
    expect(r.compiled.chains['prompts/get:response']).toBeUndefined();
    expect(r.compiled.size).toBe(2);
  });

  it('names the field path of a parse error', () => {
    const r = compileGuardrails({
      interceptors: [
        { ...pii, mode: 'sometimes' },
        { ...pii, name: 'Bad Name' },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual(
      expect.arrayContaining(['guardrails.interceptors.0.mode', 'guardrails.interceptors.1.name']),
    );
  });

  it('refuses duplicate names, a cel mutation and a request phase without tools/call', () => {
    const cel = {
      name: 'c',
      type: 'mutation',
      hook: { events: ['tools/call'] },
      use: { builtin: 'cel', rules: [{ name: 'r', expr: 'true', message: 'no' }] },
    };
    const prompt = { ...pii, name: 'p', hook: { events: ['prompts/get'], phase: 'request' } };
    const r = compileGuardrails({ interceptors: [pii, pii, cel, prompt] }, { cel: tinyCel });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      { path: 'guardrails.interceptors.1.name', message: 'duplicate interceptor name "pii"' },
      { path: 'guardrails.interceptors.2.type', message: 'a cel interceptor is a validation' },
      { path: 'guardrails.interceptors.3.hook.phase', message: 'request phase is intercepted on tools/call only' },
    ]);
  });

  it('names the rule and the position of a CEL compile error', () => {
    const rules = [
      { name: 'ok', expr: 'true', message: 'fine' },
      { name: 'broken', expr: ')', message: 'never' },
    ];
    const raw = {
      interceptors: [
        { name: 'policy', type: 'validation', hook: { events: ['tools/call'], phase: 'request' }, use: { builtin: 'cel', rules } },
      ],
    };
    expect(compileGuardrails(raw, { cel: tinyCel })).toEqual({
      ok: false,
      errors: [{ path: 'guardrails.interceptors.0.use.rules.1.expr', message: 'rule "broken" at line 1, column 1: unexpected token ")"' }],
    });
    const real = compileGuardrails({
      interceptors: [
        {
          ...raw.interceptors[0],
          use: { builtin: 'cel', rules: [{ name: 'typo', expr: 'tool.name == "a" &&\n  caler.groups', message: 'm' }] },
        },
      ],
    });
    expect(real).toEqual({
      ok: false,
      errors: [{ path: 'guardrails.interceptors.0.use.rules.0.expr', message: 'rule "typo" at line 2, column 3: Unknown variable: caler' }],
    });
  });

  it('refuses a national-id shape RE2 cannot run, and a webhook that is not http(s)', () => {
    const nid = {
      ...pii,
      use: {
        builtin: 'pii',
        nationalIds: [
          { name: 'ok', pattern: '[0-9]{9}' },
          { name: 'bad', pattern: '(a)\\1' },
        ],
      },
    };
    const hook = {
      name: 'hook',
      type: 'validation',
      hook: { events: ['tools/call'] },
      use: { webhook: { url: 'ftp://example.com/x', secret: SECRET } },
    };
    const r = compileGuardrails({ interceptors: [nid, hook] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual([
      'guardrails.interceptors.0.use.nationalIds.1.pattern',
      'guardrails.interceptors.1.use.webhook.url',
    ]);
  });

  it('bounds what a tenant configures', () => {
    const many = Array.from({ length: 33 }, (_, i) => ({ ...pii, name: `p${i}` }));
    const r = compileGuardrails({ interceptors: many });
    expect(r.ok || r.errors[0]?.path).toBe('guardrails.interceptors');
    const long = compileGuardrails({
      interceptors: [{ ...pii, use: { builtin: 'cel', rules: [{ name: 'r', expr: 'x'.repeat(2049), message: 'm' }] }, type: 'validation' }],
    });
    expect(long.ok || long.errors[0]?.path).toBe('guardrails.interceptors.0.use.rules.0.expr');
  });
});
