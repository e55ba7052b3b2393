import { compileGuardrails } from '@switchboard/guardrails';
import type { InterceptorInput } from './guardrails-config-schema';

export interface ChainIssue {
  /** The request path of the offending value (`body.interceptors.2.use.rules.0.expr`). */
  field: string;
  message: string;
}

/** Stands in for a secret the request leaves out (the stored one is kept): compiling needs a well-formed one. */
const KEPT_SECRET = `whsec_${'A'.repeat(32)}`;

/**
 * What the guardrails engine refuses in a chain the body schema accepted: repeated names,
 * patterns RE2 cannot run, CEL that does not compile (naming the rule, line and column) —
 * compiled with the same engine and CEL evaluator as the gateways. Paths are the request's
 * (`body.interceptors.…`), not the document's (`guardrails.…`).
 */
export function chainIssues(interceptors: InterceptorInput[], at = 'body'): ChainIssue[] {
  const candidate = {
    interceptors: interceptors.map((i) =>
      'webhook' in i.use ? { ...i, use: { webhook: { ...i.use.webhook, secret: i.use.webhook.secret ?? KEPT_SECRET } } } : i,
    ),
  };
  const result = compileGuardrails(candidate);
  if (result.ok) return [];
  return result.errors.map((e) => ({ field: e.path.replace(/^guardrails/, at), message: e.message }));
}
