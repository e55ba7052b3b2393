import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { JsonSchema, Route, ToolDefinition, ToolEntry } from './definitions';

/** One document's schemas: their JSON texts joined and deflated, and where each one ends. */
interface SchemaPack {
  readonly bytes: Buffer;
  readonly ends: Uint32Array;
}

const PACK = Symbol('schemaPack');
const INPUT = Symbol('inputSchemaIndex');
const OUTPUT = Symbol('outputSchemaIndex');

interface Compacted {
  [PACK]: SchemaPack;
  [INPUT]?: number;
  [OUTPUT]?: number;
}

// The pack last inflated: compiling a list page reads every schema of one catalog in a row.
let lastPack: SchemaPack | undefined;
let lastText = '';

function schemaAt(pack: SchemaPack, index: number): JsonSchema {
  if (pack !== lastPack) {
    lastText = inflateRawSync(pack.bytes).toString('utf8');
    lastPack = pack;
  }
  return JSON.parse(lastText.slice(index === 0 ? 0 : pack.ends[index - 1], pack.ends[index])) as JsonSchema;
}

// One getter pair for every compacted definition: V8 then shares their hidden classes.
function inputSchema(this: Compacted): JsonSchema {
  return schemaAt(this[PACK], this[INPUT] as number);
}
function outputSchema(this: Compacted): JsonSchema {
  return schemaAt(this[PACK], this[OUTPUT] as number);
}

/**
 * A document's tool entries, compacted for a long-lived catalog. Schemas are most of a resident
 * tenant's heap (70% of the 40-tool fixture's parsed objects) and are read only when a list page
 * or a tool's validator is compiled, so they are kept as one deflated text per document and
 * parsed on each read. They stay enumerable properties (spread, `JSON.stringify` and equality
 * see them); what backs them is not. The strings every route of one upstream repeats
 * (`serverId`, `url`) are held once. Readers on a per-call path must not read schemas each call.
 */
export function compactToolEntries(entries: readonly ToolEntry[]): ToolEntry[] {
  const texts: string[] = [];
  const ends: number[] = [];
  let length = 0;
  const add = (schema: unknown): number | undefined => {
    if (typeof schema !== 'object' || schema === null) return undefined;
    const text = JSON.stringify(schema);
    texts.push(text);
    ends.push((length += text.length));
    return ends.length - 1;
  };
  const indexes = entries.map((e) => [add(e.definition.inputSchema), add(e.definition.outputSchema)] as const);
  if (texts.length === 0) return entries.slice();
  const pack: SchemaPack = { bytes: exactCopy(deflateRawSync(texts.join(''), { level: 1 })), ends: Uint32Array.from(ends) };
  const strings = new Map<string, string>();
  const once = (s: string): string => strings.get(s) ?? (strings.set(s, s), s);
  return entries.map((entry, i) => ({
    ...entry,
    definition: compactDefinition(entry.definition, pack, indexes[i] as readonly [number | undefined, number | undefined]),
    route: compactRoute(entry.route, once),
  }));
}

function compactDefinition(
  def: ToolDefinition,
  pack: SchemaPack,
  [input, output]: readonly [number | undefined, number | undefined],
): ToolDefinition {
  const out: Record<string | symbol, unknown> = {};
  Object.defineProperty(out, PACK, { value: pack });
  for (const key of Object.keys(def)) {
    if (key === 'inputSchema' && input !== undefined) {
      Object.defineProperty(out, INPUT, { value: input });
      Object.defineProperty(out, key, { get: inputSchema, enumerable: true });
    } else if (key === 'outputSchema' && output !== undefined) {
      Object.defineProperty(out, OUTPUT, { value: output });
      Object.defineProperty(out, key, { get: outputSchema, enumerable: true });
    } else {
      out[key] = (def as unknown as Record<string, unknown>)[key];
    }
  }
  return out as unknown as ToolDefinition;
}

/** True when `def`'s schemas are parsed on each read: cache what is derived from them by tool, not by schema object. */
export function isCompact(def: ToolDefinition): boolean {
  return Object.prototype.hasOwnProperty.call(def, PACK);
}

/** zlib's result is a view of its (16 KiB) output chunk: keep only the bytes. */
function exactCopy(view: Buffer): Buffer {
  const out = Buffer.allocUnsafeSlow(view.length);
  view.copy(out);
  return out;
}

function compactRoute(route: Route, once: (s: string) => string): Route {
  if (route.kind !== 'upstream') return route;
  return { ...route, serverId: once(route.serverId), url: once(route.url) };
}
