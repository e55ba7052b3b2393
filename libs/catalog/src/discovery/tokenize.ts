import { PHRASES, RELATED, SYNONYM_GROUPS } from './thesaurus';

/** Weight of a synonym's match, and of a related API term's, relative to the query word itself. */
const SYNONYM_WEIGHT = 0.4;
const RELATED_WEIGHT = 0.5;

/** Longest text a field contributes to the index (a hostile description must not cost more). */
export const MAX_FIELD_CHARS = 4_096;
/** Longest token kept (base64 blobs and the like carry no meaning for search). */
const MAX_TOKEN_CHARS = 40;

/** Function words that match everything and rank nothing. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or of to in on for with by from at as is are be been was were it its this that these those i me my mine ' +
    'you your we our us they them their he she his her can could would should will shall do does did done please want ' +
    'need some any there here so if then than into onto about via per also just not no yes what which whom how when ' +
    'where why let lets get s t'
  ).split(' '),
);

/**
 * Lower-cased stems of a text: words split on non-alphanumerics and at camelCase and
 * snake_case boundaries, stop words dropped, each word lightly stemmed ({@link stem}).
 */
export function tokenize(text: string): string[] {
  const bounded = text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text;
  const spaced = bounded.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  const out: string[] = [];
  for (const word of spaced.toLowerCase().split(/[^a-z0-9]+/)) {
    if (word.length === 0 || word.length > MAX_TOKEN_CHARS || STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/**
 * A light suffix stripper: plurals, `-ing`, `-ed` and a final `e` go, so "creates", "created",
 * "creating" and "create" meet at one stem. Not linguistics: only consistency matters.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /^\d+$/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:ches|shes|xes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const n = w.length;
  return n > 2 && w[n - 1] === w[n - 2] && !/[aeiouls]/.test(w[n - 1] as string) ? w.slice(0, -1) : w;
}

/** Stem → the stems a query word also reaches, with their weights (synonyms, then related API terms). */
const EXPANSIONS: ReadonlyMap<string, ReadonlyMap<string, number>> = (() => {
  const map = new Map<string, Map<string, number>>();
  const add = (from: string, to: string, weight: number) => {
    if (from === to) return;
    const own = map.get(from) ?? new Map<string, number>();
    own.set(to, Math.max(own.get(to) ?? 0, weight));
    map.set(from, own);
  };
  for (const group of SYNONYM_GROUPS) {
    const stems = group.map(stem);
    for (const a of stems) for (const b of stems) add(a, b, SYNONYM_WEIGHT);
  }
  for (const [word, terms] of Object.entries(RELATED)) for (const t of terms) add(stem(word), stem(t), RELATED_WEIGHT);
  return map;
})();

/** The stems a query stem also reaches, with their weights (empty when none). */
export function expansionsOf(stemmed: string): ReadonlyMap<string, number> {
  return EXPANSIONS.get(stemmed) ?? NONE;
}

const NONE: ReadonlyMap<string, number> = new Map();

/** A query's stems: {@link tokenize} after everyday phrases are rewritten to the API word they mean. */
export function tokenizeQuery(query: string): string[] {
  let text = query.toLowerCase();
  for (const [phrase, word] of PHRASES) text = text.replace(phrase, ` ${word} `);
  return tokenize(text);
}
