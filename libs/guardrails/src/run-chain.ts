import type { ChainDeps, CompiledInterceptor, InterceptContext, Verdict } from './compiled-guardrails';

/** The chain's decision: go on with `payload` (mutated or not), or deny naming the interceptor. */
export type ChainOutcome = { kind: 'pass'; payload: unknown } | { kind: 'deny'; interceptor: string; reason: string };

/** What a client is told when a fail-closed interceptor fails: no internal detail. */
export const FAILED_CLOSED_REASON = 'interceptor unavailable';

type Settled = { ok: true; verdict: Verdict } | { ok: false; error: string };

/**
 * Runs one hook point's chain. The gateway is the sending side of both crossings (to the
 * upstream with arguments, to the client with results), so SEP-2624's sending order applies:
 * mutators first, sequentially in document order, then validators in parallel over the final
 * payload, so what is validated is what is sent. The first enforced denial in document order
 * wins. Audit-mode interceptors never change the outcome: their denials and shadow mutations
 * go to `deps.record`. A failing interceptor denies unless `failOpen` (audit never blocks).
 */
export async function runChain(
  chain: readonly CompiledInterceptor[],
  payload: unknown,
  ctx: InterceptContext,
  deps: ChainDeps,
): Promise<ChainOutcome> {
  const selected = chain.filter((i) => i.matches(ctx.server, ctx.target));
  if (selected.length === 0) return { kind: 'pass', payload };
  let current = payload;
  for (const m of selected) {
    if (m.type !== 'mutation') continue;
    const s = await settle(m, current, ctx, deps);
    if (!s.ok) {
      if (failure(m, s.error, ctx, deps)) return { kind: 'deny', interceptor: m.name, reason: FAILED_CLOSED_REASON };
      continue;
    }
    if (s.verdict.kind === 'deny') {
      if (decide(m, s.verdict.reason, ctx, deps)) return { kind: 'deny', interceptor: m.name, reason: s.verdict.reason };
    } else if (s.verdict.kind === 'mutate') {
      record(m, 'mutate', ctx, deps, undefined, s.verdict.info);
      if (m.mode === 'enforce') current = s.verdict.payload;
    }
  }
  const validators = selected.filter((i) => i.type === 'validation');
  if (validators.length === 0) return { kind: 'pass', payload: current };
  const vctx = ctx.point === 'tools/call:request' && current !== payload ? { ...ctx, args: current as Record<string, unknown> } : ctx;
  const results = await Promise.all(validators.map((v) => settle(v, current, vctx, deps)));
  let outcome: ChainOutcome = { kind: 'pass', payload: current };
  // Every validator ran, so every one is recorded; the first enforced denial in document order decides.
  results.forEach((s, i) => {
    const v = validators[i]!;
    let deny: ChainOutcome | undefined;
    if (!s.ok) {
      if (failure(v, s.error, ctx, deps)) deny = { kind: 'deny', interceptor: v.name, reason: FAILED_CLOSED_REASON };
    } else if (s.verdict.kind === 'deny' && decide(v, s.verdict.reason, ctx, deps)) {
      deny = { kind: 'deny', interceptor: v.name, reason: s.verdict.reason };
    }
    if (deny && outcome.kind === 'pass') outcome = deny;
  });
  return outcome;
}

async function settle(i: CompiledInterceptor, payload: unknown, ctx: InterceptContext, deps: ChainDeps): Promise<Settled> {
  try {
    const r = i.run(payload, ctx, deps);
    return { ok: true, verdict: r instanceof Promise ? await r : r };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

/** Records a denial; true when it takes effect (enforce mode). */
function decide(i: CompiledInterceptor, reason: string, ctx: InterceptContext, deps: ChainDeps): boolean {
  record(i, 'deny', ctx, deps, reason);
  return i.mode === 'enforce';
}

/** Records a failure; true when it closes the call (enforce mode, not failOpen). */
function failure(i: CompiledInterceptor, error: string, ctx: InterceptContext, deps: ChainDeps): boolean {
  const closes = i.mode === 'enforce' && !i.failOpen;
  deps.record({
    interceptor: i.name,
    point: ctx.point,
    server: ctx.server,
    target: ctx.target,
    mode: i.mode,
    outcome: 'error',
    applied: closes,
    reason: error,
  });
  return closes;
}

function record(
  i: CompiledInterceptor,
  outcome: 'deny' | 'mutate',
  ctx: InterceptContext,
  deps: ChainDeps,
  reason?: string,
  info?: Record<string, unknown>,
): void {
  deps.record({
    interceptor: i.name,
    point: ctx.point,
    server: ctx.server,
    target: ctx.target,
    mode: i.mode,
    outcome,
    applied: i.mode === 'enforce',
    ...(reason !== undefined ? { reason } : {}),
    ...(info ? { info } : {}),
  });
}
