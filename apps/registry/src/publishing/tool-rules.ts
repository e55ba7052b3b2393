import { effectiveAnnotations, missingHints, REQUIRED_HINTS, type RequiredHint } from './tool-hints';

export { REQUIRED_HINTS };

/**
 * The per-tool rules, defined once: the publish gate (apply-publication.ts), Readiness
 * (readiness/check-tools.ts) and the console (through `problems` on GET /v1/servers/:id/items)
 * all judge a tool with these, so a tool cannot pass one and fail another for the same reason.
 */
export type ToolRuleId = 'hints-required' | 'title' | 'findings';

export interface ToolRule {
  id: ToolRuleId;
  /** `block`: publishing refuses the tool; `warn`: it publishes, but Readiness fails it once live. */
  level: 'block' | 'warn';
}

export const TOOL_RULES: Readonly<Record<ToolRuleId, ToolRule>> = {
  'hints-required': { id: 'hints-required', level: 'block' },
  title: { id: 'title', level: 'warn' },
  findings: { id: 'findings', level: 'block' },
};

/** One rule a tool breaks. `field`: the editor field that fixes it (the console deep-links to it). */
export interface ToolProblem {
  rule: ToolRuleId;
  level: 'block' | 'warn';
  field: RequiredHint | 'title' | 'findings';
  message: string;
}

/** The tenant's overrides of one tool, as stored on its publication. */
export interface ToolOverrides {
  title?: string;
  annotations?: Record<string, unknown>;
}

const HINT_WORDS: Record<RequiredHint, string> = {
  readOnlyHint: 'read-only',
  destructiveHint: 'destructive',
  openWorldHint: 'open world',
};
const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v !== '';

/** Rule `hints-required`: the required hints the tool lacks with these overrides (the publish gate refuses it). */
export function missingRequiredHints(definition: unknown, overrides?: ToolOverrides): RequiredHint[] {
  return missingHints(effectiveAnnotations(definition, overrides?.annotations));
}

/** Rule `hints-required`, on a tool as served (Readiness's tool-hints check): the required hints its annotations lack. */
export function servedHintGaps(served: Record<string, unknown>): RequiredHint[] {
  return missingHints(served.annotations);
}

/** Rule `title`, on a tool as served: which of `title` and `annotations.title` it lacks (Readiness's tool-titles check). */
export function titleGaps(served: Record<string, unknown>): {
  title: boolean;
  annotationTitle: boolean;
} {
  return {
    title: !nonEmpty(served.title),
    annotationTitle: !nonEmpty(asRecord(served.annotations).title),
  };
}

/**
 * The title fields of a tool as the claude surface serves it: the snapshot's merge of overrides
 * (build-snapshot.ts) plus the surface's copy of `title` into a missing `annotations.title`.
 */
export function servedTitles(definition: unknown, overrides?: ToolOverrides): Record<string, unknown> {
  const def = asRecord(definition);
  const title = overrides?.title !== undefined ? overrides.title : def.title;
  const annotations = effectiveAnnotations(def, overrides?.annotations);
  return {
    title,
    annotations: {
      ...annotations,
      title: annotations.title === undefined ? title : annotations.title,
    },
  };
}

/**
 * Every rule the tool breaks with these overrides. `findings`: poisoned-tool warnings not yet
 * acknowledged, which only block a tool that is not published yet.
 */
export function toolProblems(tool: {
  definition: unknown;
  overrides?: ToolOverrides;
  findings: number;
  published: boolean;
}): ToolProblem[] {
  const out: ToolProblem[] = missingRequiredHints(tool.definition, tool.overrides).map((h) => ({
    rule: 'hints-required',
    level: TOOL_RULES['hints-required'].level,
    field: h,
    message: `State whether it is ${HINT_WORDS[h]}`,
  }));
  const gaps = titleGaps(servedTitles(tool.definition, tool.overrides));
  if (gaps.title || gaps.annotationTitle)
    out.push({
      rule: 'title',
      level: TOOL_RULES.title.level,
      field: 'title',
      message: 'Give it a title (Claude shows it; Readiness checks it)',
    });
  const findings = tool.published ? 0 : tool.findings;
  if (findings > 0) {
    out.push({
      rule: 'findings',
      level: TOOL_RULES.findings.level,
      field: 'findings',
      message: `Review ${findings} poisoned-tool warning${findings === 1 ? '' : 's'} and acknowledge them`,
    });
  }
  return out;
}
