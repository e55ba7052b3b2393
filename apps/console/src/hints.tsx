import type { AnnotationOverrides } from './api';

/** The behaviour hints of a tool, in the order the Tools page shows them. */
export const HINTS = [
  { key: 'readOnlyHint', label: 'Read-only', help: 'It only reads: it changes nothing anywhere.', mcpDefault: false },
  { key: 'destructiveHint', label: 'Destructive', help: 'It may delete or overwrite data (when not read-only).', mcpDefault: true },
  {
    key: 'idempotentHint',
    label: 'Idempotent',
    help: 'Calling it again with the same arguments has no further effect.',
    mcpDefault: false,
  },
  { key: 'openWorldHint', label: 'Open world', help: 'It reaches systems outside yours (the web, third-party APIs).', mcpDefault: true },
] as const;

export type HintKey = (typeof HINTS)[number]['key'];

/** The hints a tool must state (upstream or by override) before it can be published: clients decide on confirmations with them. */
export const REQUIRED_HINTS: readonly HintKey[] = ['readOnlyHint', 'destructiveHint', 'openWorldHint'];

/** A tri-state override control's value: inherit the upstream's (''), or force true / false. */
export type TriState = '' | 'true' | 'false';

/** The upstream tool's `annotations` (an empty object when it has none or they are malformed). */
export function upstreamAnnotations(definition: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const a = definition?.annotations;
  return typeof a === 'object' && a !== null && !Array.isArray(a) ? (a as Record<string, unknown>) : {};
}

/** The override of one hint as a tri-state value. */
export function triOf(v: boolean | undefined): TriState {
  return v === undefined ? '' : v ? 'true' : 'false';
}

/** A tri-state value as an override (undefined = inherit). */
export function boolOf(v: TriState): boolean | undefined {
  return v === '' ? undefined : v === 'true';
}

/**
 * Required hints the tool would still lack with these overrides: neither the override nor the
 * upstream definition states them. `serverSays` (the registry's `missingHints`) adds what the
 * registry counts as missing, unless the form now sets that hint explicitly.
 */
export function missingHints(
  definition: Record<string, unknown> | null | undefined,
  overrides: AnnotationOverrides | undefined,
  serverSays: readonly string[] = [],
): HintKey[] {
  const upstream = upstreamAnnotations(definition);
  return REQUIRED_HINTS.filter((h) => {
    if (typeof overrides?.[h] === 'boolean') return false;
    return typeof upstream[h] !== 'boolean' || serverSays.includes(h);
  });
}
