import type { z } from 'zod';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { putGuardrailsBody, useBranch } from './guardrails-config-schema';

type Issue = { field: string; message: string };

/**
 * parseInput for a chain, except that a refused `use` is explained by the branch its keys
 * choose (`body.interceptors.0.use.rules.0.expr: …`) instead of zod's bare "invalid union".
 */
export function parseChain(body: unknown): z.infer<typeof putGuardrailsBody> {
  try {
    return parseInput(putGuardrailsBody, body, 'body');
  } catch (err) {
    const issues = (err as ApiError).details?.issues as Issue[] | undefined;
    if (!(err instanceof ApiError) || !issues) throw err;
    const explained = issues.flatMap((i) => explainUse(i, body));
    const first = explained[0];
    if (!first || first.field === err.field) throw err;
    throw new ApiError(400, 'VALIDATION', `${first.field}: ${first.message}`, first.field, { issues: explained });
  }
}

function explainUse(issue: Issue, body: unknown): Issue[] {
  const m = /^body\.interceptors\.(\d+)\.use$/.exec(issue.field);
  if (!m) return [issue];
  const value = (body as { interceptors: Array<{ use?: unknown }> }).interceptors[Number(m[1])]?.use;
  const branch = useBranch(value);
  if (!branch) return [{ field: issue.field, message: 'must be {"builtin":"pii",…}, {"builtin":"cel","rules":[…]} or {"webhook":{…}}' }];
  const parsed = branch.safeParse(value);
  if (parsed.success) return [issue];
  return parsed.error.issues.map((i) => ({ field: [issue.field, ...i.path.map(String)].join('.'), message: i.message }));
}
