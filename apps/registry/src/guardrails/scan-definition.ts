import { linearRegExp, type LinearRegExp } from '@switchboard/catalog';
import { confusableSkeleton } from './confusable-skeleton';
import {
  MAX_FINDINGS_PER_ITEM,
  MAX_SCANNED_TEXTS,
  POISON_RULES,
  SCAN_MAX_CHARS,
  type FindingSeverity,
  type PoisonRule,
} from './poison-rules';

/** One thing a rule found in a discovered definition; `id` is stable for the same rule at the same place. */
export interface PoisonFinding {
  id: string;
  rule: string;
  severity: FindingSeverity;
  /** JSON pointer of the text in the definition (`/description`, `/inputSchema/properties/q/description`). */
  pointer: string;
  message: string;
  /** What matched, clipped, with invisible characters written as `\u{…}` so a reviewer sees them. */
  excerpt: string;
}

/** A tool of another server of the same tenant, keyed by its confusable skeleton. */
export interface OtherTool {
  serverId: string;
  name: string;
}

export interface ScanInput {
  kind: 'tool' | 'resource' | 'resource_template' | 'prompt';
  name: string;
  definition: unknown;
  /** Other servers' tool names by `confusableSkeleton` (only tools and prompts are compared). */
  others?: ReadonlyMap<string, OtherTool>;
}

interface Text {
  pointer: string;
  text: string;
}

const COMPILED = new Map<string, LinearRegExp>(
  POISON_RULES.flatMap((r) => (r.match.type === 'pattern' ? [[r.id, linearRegExp(r.match.pattern, 'i')] as const] : [])),
);
const FORMAT_CHAR = /^\p{Cf}$/u;
const EXCERPT_CHARS = 120;

/**
 * Scans one discovered item for poisoning: every rule of POISON_RULES over its name, title,
 * description, parameter descriptions and prompt argument texts, plus the homoglyph check of its
 * name against the tenant's other servers. Pure and bounded: at most MAX_SCANNED_TEXTS texts of
 * SCAN_MAX_CHARS each, at most MAX_FINDINGS_PER_ITEM findings.
 */
export function scanDefinition(input: ScanInput): PoisonFinding[] {
  const findings: PoisonFinding[] = [];
  for (const { pointer, text } of textsOf(input.definition)) {
    for (const rule of POISON_RULES) {
      if (rule.scope !== 'text') continue;
      const excerpt = matchText(rule, text);
      if (excerpt !== undefined) findings.push(finding(rule, pointer, excerpt));
    }
  }
  const shadowed = input.kind === 'tool' || input.kind === 'prompt' ? input.others?.get(confusableSkeleton(input.name)) : undefined;
  if (shadowed && shadowed.name !== input.name) {
    const rule = POISON_RULES.find((r) => r.match.type === 'shadow') as PoisonRule;
    findings.push({
      ...finding(rule, '/name', escapeInvisible(input.name)),
      message: `${rule.message}: "${shadowed.name}" of server "${shadowed.serverId}"`,
    });
  }
  return findings.length > MAX_FINDINGS_PER_ITEM ? findings.slice(0, MAX_FINDINGS_PER_ITEM) : findings;
}

function finding(rule: PoisonRule, pointer: string, excerpt: string): PoisonFinding {
  return { id: `${rule.id}@${pointer}`, rule: rule.id, severity: rule.severity, pointer, message: rule.message, excerpt };
}

/** The excerpt when `rule` matches `text`, else undefined. */
export function matchText(rule: PoisonRule, whole: string): string | undefined {
  const m = rule.match;
  if (m.type === 'length') return whole.length > m.max ? `${whole.length} characters` : undefined;
  const text = whole.length > SCAN_MAX_CHARS ? whole.slice(0, SCAN_MAX_CHARS) : whole;
  if (m.type === 'pattern') {
    const hit = (COMPILED.get(rule.id) as LinearRegExp).exec(text.normalize('NFKC'));
    return hit ? escapeInvisible(clip(hit[0] ?? '')) : undefined;
  }
  if (m.type === 'codepoints' || m.type === 'format-char') {
    let at = 0;
    for (const ch of text) {
      const cp = ch.codePointAt(0) as number;
      const hit = m.type === 'codepoints' ? m.ranges.some(([lo, hi]) => cp >= lo && cp <= hi) : FORMAT_CHAR.test(ch) && !otherRuleOwns(cp);
      if (hit && !emojiJoiner(text, at, cp)) return escapeInvisible(clip(text.slice(Math.max(0, at - 20), at + 20)));
      at += ch.length;
    }
  }
  return undefined;
}

/** Code points a more specific rule (bidi, zero-width, tags) reports, so `format-char` does not repeat them. */
function otherRuleOwns(cp: number): boolean {
  return POISON_RULES.some((r) => r.match.type === 'codepoints' && r.match.ranges.some(([lo, hi]) => cp >= lo && cp <= hi));
}

// A zero-width joiner between two pictographs builds one emoji (👩‍💻): ordinary text, not hiding.
const PICTO = /\p{Extended_Pictographic}/u;
function emojiJoiner(text: string, at: number, cp: number): boolean {
  if (cp !== 0x200d) return false;
  const before = Array.from(text.slice(Math.max(0, at - 4), at))
    .filter((c) => c !== '\ufe0f')
    .pop();
  const after = Array.from(text.slice(at + 1, at + 5))[0];
  return before !== undefined && after !== undefined && PICTO.test(before) && PICTO.test(after);
}

function clip(s: string): string {
  return s.length > EXCERPT_CHARS ? `${s.slice(0, EXCERPT_CHARS)}…` : s;
}

/** Writes every invisible or bidi character as `\u{XXXX}` so a reviewer can see it. */
export function escapeInvisible(s: string): string {
  let out = '';
  for (const ch of s) out += FORMAT_CHAR.test(ch) ? `\\u{${(ch.codePointAt(0) as number).toString(16).toUpperCase()}}` : ch;
  return out;
}

/** The texts a definition shows the model, with JSON pointers, bounded by MAX_SCANNED_TEXTS. */
export function textsOf(definition: unknown): Text[] {
  const out: Text[] = [];
  if (!isObject(definition)) return out;
  const add = (pointer: string, v: unknown) => {
    if (typeof v === 'string' && out.length < MAX_SCANNED_TEXTS) out.push({ pointer, text: v });
  };
  for (const key of ['name', 'title', 'description']) add(`/${key}`, definition[key]);
  if (isObject(definition.annotations)) add('/annotations/title', definition.annotations.title);
  if (Array.isArray(definition.arguments)) {
    definition.arguments.slice(0, MAX_SCANNED_TEXTS).forEach((a: unknown, i) => {
      if (isObject(a)) for (const key of ['name', 'title', 'description']) add(`/arguments/${i}/${key}`, a[key]);
    });
  }
  for (const key of ['inputSchema', 'outputSchema']) schemaTexts(definition[key], `/${key}`, add);
  return out;
}

// Breadth-first over the schema's own keywords that nest schemas; `description` and `title` of each.
const NESTING = ['properties', 'patternProperties', '$defs', 'definitions'];
const SINGLE = ['items', 'additionalProperties', 'not'];
const LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

function schemaTexts(root: unknown, base: string, add: (pointer: string, v: unknown) => void): void {
  const queue: Array<[unknown, string]> = [[root, base]];
  // Bounded as the texts are: a schema with a million properties queues no more than this.
  const push = (node: unknown, ptr: string) => {
    if (queue.length < MAX_SCANNED_TEXTS) queue.push([node, ptr]);
  };
  for (let i = 0; i < queue.length; i++) {
    const [node, ptr] = queue[i];
    if (!isObject(node)) continue;
    add(`${ptr}/title`, node.title);
    add(`${ptr}/description`, node.description);
    for (const k of NESTING)
      if (isObject(node[k])) for (const [name, sub] of Object.entries(node[k])) push(sub, `${ptr}/${k}/${escapePointer(name)}`);
    for (const k of SINGLE) push(node[k], `${ptr}/${k}`);
    for (const k of LISTS) if (Array.isArray(node[k])) (node[k] as unknown[]).forEach((sub, j) => push(sub, `${ptr}/${k}/${j}`));
  }
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
