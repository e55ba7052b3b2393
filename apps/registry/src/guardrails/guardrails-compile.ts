import { compileGuardrails, type CelEngine } from '@switchboard/guardrails';
import type { InterceptorInput } from './guardrails-config-schema';

export interface ChainIssue {
  /** The request path of the offending value (`body.interceptors.2.use.rules.0.expr`). */
  field: string;
  message: string;
}

/** Stands in for a secret the request leaves out (the stored one is kept): compiling needs a well-formed one. */
const KEPT_SECRET = `whsec_${'A'.repeat(32)}`;

/**
 * The CEL evaluator the registry compiles rules with; the same one the gateways run. Undefined
 * until the guardrails engine ships one: CEL rules are then checked for shape only here.
 */
const CEL: CelEngine | undefined = undefined;
const NO_CEL = 'CEL rules are not available in this build';

/**
 * What the guardrails engine refuses in a chain the body schema accepted: repeated names,
 * linear-time patterns, CEL that does not compile (naming the rule and the position). Paths
 * are the request's (`body.interceptors.…`), not the document's (`guardrails.…`).
 */
export function chainIssues(interceptors: InterceptorInput[], at = 'body'): ChainIssue[] {
  const candidate = {
    interceptors: interceptors.map((i) => ('webhook' in i.use ? { ...i, use: { webhook: { ...i.use.webhook, secret: i.use.webhook.secret ?? KEPT_SECRET } } } : i)),
  };
  const result = compileGuardrails(candidate, { cel: CEL });
  if (result.ok) return [];
  return result.errors
    .filter((e) => CEL !== undefined || !e.message.endsWith(NO_CEL))
    .map((e) => ({ field: e.path.replace(/^guardrails/, at), message: e.message }));
}
