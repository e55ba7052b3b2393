import { findUnsupportedPatterns, type UnsupportedPattern } from '@switchboard/catalog';

/**
 * Regexes of a discovered tool's `inputSchema` that the gateway's linear-time engine (RE2) cannot
 * run — backreferences, lookaround — with pointers from the definition root (`/inputSchema/…`).
 * Publishing and approving refuse such a tool (400 PATTERN_UNSUPPORTED); the console shows them.
 */
export function patternIssues(definition: unknown): UnsupportedPattern[] {
  const schema = definition !== null && typeof definition === 'object' ? (definition as Record<string, unknown>).inputSchema : undefined;
  return findUnsupportedPatterns(schema).map((p) => ({ ...p, pointer: `/inputSchema${p.pointer}` }));
}

/** The sentence the API and console show for one refused pattern. */
export function patternIssueMessage(tool: string, issue: UnsupportedPattern): string {
  return `tool "${tool}" cannot be published: ${issue.pointer} uses ${issue.reason}, which the gateway's linear-time regex engine cannot run; change the pattern on the upstream server`;
}
