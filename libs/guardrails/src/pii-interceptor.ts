import type { CompiledInterceptor, Verdict } from './compiled-guardrails';
import type { InterceptorConfig } from './guardrails-schema';
import type { PiiDetector } from './pii-patterns';
import { redactDeep } from './pii-redactor';

/**
 * The built-in `pii` interceptor: as a mutation it redacts in place (`[REDACTED:email]`); as a
 * validation it denies a payload that holds any of its kinds, naming the kinds only (never the data).
 */
export function piiRun(config: InterceptorConfig, detectors: readonly PiiDetector[]): CompiledInterceptor['run'] {
  return (payload, ctx): Verdict => {
    const { value, counts } = redactDeep(payload, detectors, ctx.point === 'tools/call:request');
    const labels = Object.keys(counts);
    if (labels.length === 0) return { kind: 'allow' };
    if (config.type === 'validation')
      return {
        kind: 'deny',
        reason: `${ctx.point === 'tools/call:request' ? 'arguments contain' : 'result contains'} ${labels.sort().join(', ')}`,
      };
    return { kind: 'mutate', payload: value, info: { redactions: counts } };
  };
}
