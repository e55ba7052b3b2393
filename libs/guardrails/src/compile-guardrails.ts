import type { CelEngine } from './cel-engine';
import { celJsEngine } from './cel-js-engine';
import { compileCelRules } from './cel-rules';
import { EMPTY_GUARDRAILS, type CompiledGuardrails, type CompiledInterceptor, type HookPoint, type Verdict } from './compiled-guardrails';
import { globList } from './glob';
import { parseGuardrails, type GuardrailsIssue, type InterceptorConfig } from './guardrails-schema';
import { piiDetectors } from './pii-redactor';
import { piiRun } from './pii-interceptor';
import { webhookRun } from './webhook-interceptor';

export interface CompileOptions {
  /** The CEL evaluator (default `@marcbachmann/cel-js`, `celJsEngine`); tests may inject another. */
  cel?: CelEngine;
}

export type CompileResult = { ok: true; compiled: CompiledGuardrails } | { ok: false; errors: GuardrailsIssue[] };

/**
 * Validates and compiles the tenant document's `guardrails` section once per publish: globs,
 * PII detectors (national-id shapes on RE2), CEL programs. Errors name the field path
 * (`guardrails.interceptors.0.use.rules.1.expr`) and, for CEL, the rule and the position.
 */
export function compileGuardrails(raw: unknown, options: CompileOptions = {}): CompileResult {
  const parsed = parseGuardrails(raw);
  if (!parsed.ok) return parsed;
  const interceptors = parsed.config.interceptors;
  if (interceptors.length === 0) return { ok: true, compiled: EMPTY_GUARDRAILS };
  const errors: GuardrailsIssue[] = [];
  const compiled = interceptors.map((config, i) => compileOne(config, `guardrails.interceptors.${i}`, options, errors));
  if (errors.length > 0) return { ok: false, errors };
  const chains: Partial<Record<HookPoint, CompiledInterceptor[]>> = {};
  interceptors.forEach((config, i) => {
    for (const point of hookPoints(config)) (chains[point] ??= []).push(compiled[i]!);
  });
  return { ok: true, compiled: Object.freeze({ chains, size: interceptors.length }) };
}

/** The hook points an interceptor's `hook` names; request is intercepted on tools/call only. */
export function hookPoints(config: InterceptorConfig): HookPoint[] {
  const points: HookPoint[] = [];
  for (const event of config.hook.events) {
    if (event === 'tools/call' && config.hook.phase !== 'response') points.push('tools/call:request');
    if (config.hook.phase !== 'request') points.push(`${event}:response`);
  }
  return points;
}

function compileOne(
  config: InterceptorConfig,
  path: string,
  options: CompileOptions,
  errors: GuardrailsIssue[],
): CompiledInterceptor | undefined {
  const servers = globList(config.match?.servers);
  const targets = globList(config.match?.tools);
  let run: CompiledInterceptor['run'] | undefined;
  const use = config.use;
  if ('webhook' in use) {
    const url = new URL(use.webhook.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      errors.push({ path: `${path}.use.webhook.url`, message: 'must be an https URL' });
    else run = webhookRun(config, use.webhook);
  } else if (use.builtin === 'pii') {
    try {
      run = piiRun(config, piiDetectors(use));
    } catch (err) {
      const which = use.nationalIds?.findIndex((n) => !compilesOnRe2(n.pattern)) ?? -1;
      errors.push({
        path: `${path}.use.nationalIds.${Math.max(which, 0)}.pattern`,
        message: `not a linear-time pattern: ${(err as Error).message}`,
      });
    }
  } else {
    const rules = compileCelRules(use.rules, options.cel ?? defaultCel(), `${path}.use.rules`, errors);
    if (rules) run = rules;
  }
  if (!run) return undefined;
  const r = run;
  return {
    name: config.name,
    type: config.type,
    mode: config.mode,
    failOpen: config.failOpen,
    kind: 'webhook' in use ? 'webhook' : use.builtin,
    matches: (server, target) => servers(server) && targets(target),
    run: r,
  };
}

let celEngine: CelEngine | undefined;

function defaultCel(): CelEngine {
  return (celEngine ??= celJsEngine());
}

function compilesOnRe2(pattern: string): boolean {
  try {
    piiDetectors({ builtin: 'pii', kinds: ['nationalId'], nationalIds: [{ name: 'x', pattern }] });
    return true;
  } catch {
    return false;
  }
}

export type { Verdict };
