import type { PiiConfig } from './guardrails-schema';
import { BUILTIN_DETECTORS, nationalIdDetector, type PiiDetector } from './pii-patterns';

/** Deepest JSON nesting the redactor walks; deeper payloads fail the interceptor (failOpen decides). */
export const MAX_REDACT_DEPTH = 64;

/** Keys whose string values are protocol structure, not content: redacting them would break the message. */
const STRUCTURAL_KEYS = new Set(['type', 'mimeType', 'uri', 'blob', '_meta', 'annotations', 'role']);

export interface Redaction {
  /** The value with strings redacted in place (same object when nothing matched). */
  value: unknown;
  /** Matches replaced, per label (`email`, `card`, a national-id name…). */
  counts: Record<string, number>;
}

export class RedactionDepthError extends Error {
  constructor() {
    super(`payload nests deeper than ${MAX_REDACT_DEPTH} levels`);
    this.name = 'RedactionDepthError';
  }
}

/** The detectors one `pii` interceptor runs: its kinds (default: all but national ids) plus its national-id shapes. */
export function piiDetectors(config: PiiConfig): PiiDetector[] {
  const kinds = new Set(config.kinds ?? ['email', 'phone', 'card', 'iban', 'jwt', 'bearer', 'apiKey', 'nationalId']);
  const list = BUILTIN_DETECTORS.filter((d) => kinds.has(d.kind));
  if (kinds.has('nationalId')) for (const n of config.nationalIds ?? []) list.push(nationalIdDetector(n.name, n.pattern));
  return list.sort((a, b) => a.rank - b.rank);
}

interface Span {
  start: number;
  end: number;
  label: string;
}

/** Redacts one string: each detector's matches, higher-ranked detectors winning overlaps. */
export function redactString(s: string, detectors: readonly PiiDetector[], counts: Record<string, number>): string {
  let spans: Span[] | undefined;
  for (const d of detectors) {
    if (!d.mayMatch(s)) continue;
    const m = d.re.matcher(s);
    let from = 0;
    while (from <= s.length && m.find(from)) {
      const start = m.start(d.group);
      const end = m.end(d.group);
      from = m.end() > m.start() ? m.end() : m.end() + 1;
      if (d.check && !d.check(s.slice(m.start(), m.end()))) continue;
      if (spans?.some((x) => start < x.end && end > x.start)) continue;
      (spans ??= []).push({ start, end, label: d.label });
    }
  }
  if (!spans) return s;
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += `${s.slice(at, span.start)}[REDACTED:${span.label}]`;
    at = span.end;
    counts[span.label] = (counts[span.label] ?? 0) + 1;
  }
  return out + s.slice(at);
}

/**
 * Redacts every content string of a JSON value — text content, structuredContent, resource
 * text, prompt messages, tool arguments — keeping each value's type (a string stays a string),
 * so `structuredContent` still validates against the tool's `outputSchema`. Protocol fields
 * (`type`, `uri`, `mimeType`, `blob`, `_meta`…) are left alone. Copy on write: untouched
 * subtrees are shared, and the input is never modified.
 */
export function redactDeep(value: unknown, detectors: readonly PiiDetector[], data = false): Redaction {
  const counts: Record<string, number> = {};
  return { value: walk(value, detectors, counts, 0, data), counts };
}

/** `data` is true inside tool arguments and `structuredContent`: every key there is the tool's own. */
function walk(value: unknown, detectors: readonly PiiDetector[], counts: Record<string, number>, depth: number, data: boolean): unknown {
  if (typeof value === 'string') return redactString(value, detectors, counts);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACT_DEPTH) throw new RedactionDepthError();
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = walk(value[i], detectors, counts, depth + 1, data);
      if (next !== value[i]) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!data && STRUCTURAL_KEYS.has(key)) continue;
    const next = walk(record[key], detectors, counts, depth + 1, data || key === 'structuredContent');
    if (next !== record[key]) (copy ??= { ...record })[key] = next;
  }
  return copy ?? value;
}

/** True when any detector finds something (a `pii` validation denies on it). */
export function containsPii(value: unknown, detectors: readonly PiiDetector[], data = false): Record<string, number> | undefined {
  const { counts } = redactDeep(value, detectors, data);
  return Object.keys(counts).length > 0 ? counts : undefined;
}
