/** Outcome of one readiness check. `skip`: the check could not run (a prerequisite failed or does not apply). */
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** One step of the readiness report: plain data, shown as-is in the console and asserted on by tests. */
export interface CheckResult {
  /** Stable id (`modern-discover`, `prm-resource`, …). */
  id: string;
  title: string;
  status: CheckStatus;
  /** What was observed, naming the exact problem on failure. */
  reason: string;
  /** What to change, when something is wrong. */
  fix?: string;
  /** The tools a tool check fails (at most MAX_FIX_TOOLS), each with the editor field that fixes it: the console links to that field. */
  tools?: ToolFix[];
  /** For a tool a list lacks: the console's "Why not visible?" panel on it (GET /v1/explain, docs/explain.md). */
  explain?: string;
}

/** One failing tool and the field that fixes it (`title`, `annotations-title`, or a required hint). */
export interface ToolFix {
  name: string;
  field: string;
}

/** How many tools a check lists in `tools`. */
export const MAX_FIX_TOOLS = 50;

/** The whole report of one run. */
export interface ReadinessReport {
  url: string;
  ranAt: string;
  summary: Record<CheckStatus, number>;
  checks: CheckResult[];
}

/** Builds a check result (keeps call sites short). */
export function result(id: string, title: string, status: CheckStatus, reason: string, fix?: string): CheckResult {
  return fix === undefined ? { id, title, status, reason } : { id, title, status, reason, fix };
}

/** The console address of the Explain panel for `tool` on a surface (every tool it does not list when `tool` is empty). */
export function explainHref(surface: string, tool = ''): string {
  return `/console/tools?${new URLSearchParams({ explain: tool, surface }).toString()}`;
}
