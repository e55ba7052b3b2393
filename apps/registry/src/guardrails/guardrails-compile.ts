import type { InterceptorInput } from './guardrails-config-schema';

export interface ChainIssue {
  /** The request path of the offending value (`body.interceptors.2.use.rules.0.expr`). */
  field: string;
  message: string;
}

/**
 * What is wrong with a chain beyond its shape (which the body schema checks): names that repeat,
 * and whatever the guardrails engine refuses to compile (CEL errors name the rule and position).
 */
export function chainIssues(interceptors: InterceptorInput[], at = 'body'): ChainIssue[] {
  const issues: ChainIssue[] = [];
  const names = new Set<string>();
  for (const [n, i] of interceptors.entries()) {
    if (names.has(i.name)) issues.push({ field: `${at}.interceptors.${n}.name`, message: `interceptor "${i.name}" is listed twice` });
    names.add(i.name);
    if ('builtin' in i.use && i.use.builtin === 'cel') {
      const rules = new Set<string>();
      for (const [r, rule] of i.use.rules.entries()) {
        if (rules.has(rule.name)) issues.push({ field: `${at}.interceptors.${n}.use.rules.${r}.name`, message: `rule "${rule.name}" is listed twice` });
        rules.add(rule.name);
      }
    }
  }
  return issues;
}
