/** The hint annotations every published tool must declare (Claude's and ChatGPT's directory rules; MCP-NOTES §4). */
export const REQUIRED_HINTS = ['readOnlyHint', 'destructiveHint', 'openWorldHint'] as const;
export type RequiredHint = (typeof REQUIRED_HINTS)[number];

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The annotations a tool is published with: the upstream definition's `annotations` with the
 * tenant's `overrides.annotations` on top (an override wins), as the snapshot builder merges them.
 */
export function effectiveAnnotations(definition: unknown, overrideAnnotations?: Record<string, unknown>): Record<string, unknown> {
  return { ...asRecord(asRecord(definition).annotations), ...(overrideAnnotations ?? {}) };
}

/** Required hints that are not declared as booleans, in REQUIRED_HINTS order. */
export function missingHints(annotations: unknown): RequiredHint[] {
  const a = asRecord(annotations);
  return REQUIRED_HINTS.filter((h) => typeof a[h] !== 'boolean');
}

/** Missing hints of an upstream tool definition alone (what the console flags before any override). */
export function missingToolHints(definition: unknown): RequiredHint[] {
  return missingHints(asRecord(definition).annotations);
}
