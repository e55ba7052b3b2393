/** Longest text a field contributes to the index (a hostile description must not cost more). */
export const MAX_FIELD_CHARS = 4_096;
/** Longest token kept (base64 blobs and the like carry no meaning for search). */
const MAX_TOKEN_CHARS = 40;

/** Function words that match everything and rank nothing. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or of to in on for with by from at as is are be been was were it its this that these those my me i ' +
    'you your we our us they them their he she his her can could would should will shall do does did done please want ' +
    'need some any there here so if then than into onto about via per also just not no yes what which who whom how when ' +
    'where why let lets get'
  ).split(' '),
);

/**
 * Generic action and object synonyms (English API vocabulary, not tuned to any catalog): a query
 * word also matches its group's other words, at a lower weight than an exact match.
 */
const SYNONYM_GROUPS: readonly string[][] = [
  ['create', 'add', 'new', 'make', 'open', 'start', 'insert'],
  ['delete', 'remove', 'destroy', 'erase', 'drop', 'trash', 'purge'],
  ['list', 'show', 'browse', 'enumerate', 'all'],
  ['fetch', 'retrieve', 'read', 'view', 'show', 'lookup', 'detail', 'info', 'look'],
  ['update', 'edit', 'modify', 'change', 'set', 'patch', 'rename', 'adjust'],
  ['search', 'find', 'query', 'lookup', 'filter', 'look'],
  ['send', 'post', 'notify', 'deliver'],
  ['user', 'member', 'person', 'people', 'account', 'profile'],
  ['cancel', 'abort', 'stop', 'void', 'revoke'],
  ['upload', 'attach', 'attachment'],
  ['download', 'export'],
  ['event', 'meeting', 'appointment'],
  ['comment', 'reply', 'note'],
  ['close', 'resolve', 'complete', 'finish', 'done'],
  ['reopen', 'restore', 'undo'],
  ['invite', 'share'],
  ['assign', 'assignee', 'owner'],
  ['refund', 'reimburse', 'return'],
  ['customer', 'client', 'buyer'],
  ['task', 'todo', 'ticket', 'issue', 'item'],
  ['page', 'document', 'doc'],
  ['folder', 'directory'],
  ['file', 'document'],
  ['repository', 'repo', 'project'],
  ['team', 'group'],
  ['schedule', 'calendar', 'book'],
  ['reaction', 'emoji', 'react'],
  ['bill', 'invoice', 'charge', 'payment'],
];

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

/** Stem → the other stems of its synonym groups. */
const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const stems = group.map(stem);
    for (const s of stems) {
      const set = map.get(s) ?? new Set<string>();
      for (const other of stems) if (other !== s) set.add(other);
      map.set(s, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
})();

/** The synonyms of a stem (empty when it has none). */
export function synonymsOf(stemmed: string): readonly string[] {
  return SYNONYMS.get(stemmed) ?? [];
}
