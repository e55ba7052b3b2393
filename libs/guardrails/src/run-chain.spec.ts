import type { ChainDeps, CompiledInterceptor, InterceptContext, InterceptionRecord, Verdict } from './compiled-guardrails';
import { compileGuardrails } from './compile-guardrails';
import { FAILED_CLOSED_REASON, runChain } from './run-chain';

const ctx: InterceptContext = {
  point: 'tools/call:request',
  event: 'tools/call',
  server: 'crm',
  target: 'refund',
  caller: { subject: 'u1', scopes: [], groups: [], client: 'c' },
  args: { amount: 900 },
  now: new Date(0),
};

function interceptor(
  name: string,
  o: Partial<CompiledInterceptor> & { verdict?: (payload: unknown, c: InterceptContext) => Verdict },
): CompiledInterceptor {
  return {
    name,
    type: 'validation',
    mode: 'enforce',
    failOpen: false,
    kind: 'webhook',
    matches: () => true,
    run: (payload, c) => (o.verdict ? o.verdict(payload, c) : { kind: 'allow' }),
    ...o,
  };
}

function deps(): ChainDeps & { records: InterceptionRecord[] } {
  const records: InterceptionRecord[] = [];
  return { records, webhook: () => Promise.reject(new Error('no webhook here')), record: (r) => records.push(r) };
}

describe('runChain', () => {
  it('runs mutators first, in order, and validators on the mutated payload', async () => {
    const seen: unknown[] = [];
    const chain = [
      interceptor('check', { verdict: (p, c) => (seen.push([p, c.args]), { kind: 'allow' }) }),
      interceptor('cap', { type: 'mutation', verdict: () => ({ kind: 'mutate', payload: { amount: 500 } }) }),
      interceptor('tag', { type: 'mutation', verdict: (p) => ({ kind: 'mutate', payload: { ...(p as object), tagged: true } }) }),
    ];
    const d = deps();
    expect(await runChain(chain, { amount: 900 }, ctx, d)).toEqual({ kind: 'pass', payload: { amount: 500, tagged: true } });
    expect(seen).toEqual([
      [
        { amount: 500, tagged: true },
        { amount: 500, tagged: true },
      ],
    ]);
    expect(d.records.map((r) => [r.interceptor, r.outcome, r.applied])).toEqual([
      ['cap', 'mutate', true],
      ['tag', 'mutate', true],
    ]);
  });

  it('denies on the first enforced denial in document order, and skips interceptors whose selector does not match', async () => {
    const chain = [
      interceptor('elsewhere', { matches: (server) => server === 'billing', verdict: () => ({ kind: 'deny', reason: 'never' }) }),
      interceptor('first', { verdict: () => ({ kind: 'deny', reason: 'too much' }) }),
      interceptor('second', { verdict: () => ({ kind: 'deny', reason: 'also' }) }),
    ];
    expect(await runChain(chain, {}, ctx, deps())).toEqual({ kind: 'deny', interceptor: 'first', reason: 'too much' });
  });

  it('audit mode records denials and shadow mutations without applying them', async () => {
    const chain = [
      interceptor('shadow', { mode: 'audit', type: 'mutation', verdict: () => ({ kind: 'mutate', payload: { changed: true } }) }),
      interceptor('watch', { mode: 'audit', verdict: () => ({ kind: 'deny', reason: 'would deny' }) }),
    ];
    const d = deps();
    expect(await runChain(chain, { a: 1 }, ctx, d)).toEqual({ kind: 'pass', payload: { a: 1 } });
    expect(d.records).toEqual([
      {
        interceptor: 'shadow',
        point: 'tools/call:request',
        server: 'crm',
        target: 'refund',
        mode: 'audit',
        outcome: 'mutate',
        applied: false,
      },
      {
        interceptor: 'watch',
        point: 'tools/call:request',
        server: 'crm',
        target: 'refund',
        mode: 'audit',
        outcome: 'deny',
        applied: false,
        reason: 'would deny',
      },
    ]);
  });

  it('a failing interceptor denies with no detail unless failOpen (or audit), and the failure is recorded', async () => {
    const boom = () => {
      throw new Error('socket hang up at 10.0.0.7');
    };
    const d = deps();
    expect(await runChain([interceptor('closed', { verdict: boom })], {}, ctx, d)).toEqual({
      kind: 'deny',
      interceptor: 'closed',
      reason: FAILED_CLOSED_REASON,
    });
    expect(await runChain([interceptor('open', { verdict: boom, failOpen: true })], { x: 1 }, ctx, d)).toEqual({
      kind: 'pass',
      payload: { x: 1 },
    });
    expect(await runChain([interceptor('audited', { verdict: boom, mode: 'audit' })], { x: 1 }, ctx, d)).toEqual({
      kind: 'pass',
      payload: { x: 1 },
    });
    expect(d.records.map((r) => [r.interceptor, r.outcome, r.applied, r.reason])).toEqual([
      ['closed', 'error', true, 'Error: socket hang up at 10.0.0.7'],
      ['open', 'error', false, 'Error: socket hang up at 10.0.0.7'],
      ['audited', 'error', false, 'Error: socket hang up at 10.0.0.7'],
    ]);
  });

  it('runs a compiled webhook interceptor through the injected caller and reads SEP-2624 answers', async () => {
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
    const hook = (name: string, type: string) => ({
      name,
      type,
      hook: { events: ['tools/call'], phase: 'request' },
      use: { webhook: { url: 'https://hooks.example.com/x', secret } },
    });
    const r = compileGuardrails({ interceptors: [hook('fix', 'mutation'), hook('judge', 'validation'), hook('garbled', 'validation')] });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const answers: Record<string, unknown> = {
      fix: { modified: true, payload: { amount: 1 } },
      judge: { valid: false, messages: [{ message: 'no\nrefunds' }] },
      garbled: 'yes',
    };
    const bodies: unknown[] = [];
    const d = { ...deps(), webhook: async (_w: unknown, name: string, body: unknown) => (bodies.push(body), answers[name]) };
    const outcome = await runChain(r.compiled.chains['tools/call:request']!, { amount: 900 }, ctx, d);
    expect(outcome).toEqual({ kind: 'deny', interceptor: 'judge', reason: 'no refunds' });
    expect(bodies[1]).toEqual({
      name: 'judge',
      event: 'tools/call',
      phase: 'request',
      payload: { amount: 1 },
      context: { server: 'crm', target: 'refund', principal: { id: 'u1', client: 'c' }, timestamp: '1970-01-01T00:00:00.000Z' },
    });
    expect(d.records.find((x) => x.interceptor === 'garbled')).toMatchObject({
      outcome: 'error',
      reason: 'WebhookAnswerError: answer is not a JSON object',
    });
  });
});
