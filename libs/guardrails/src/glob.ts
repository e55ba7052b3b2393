/**
 * A selector glob (`*` any run, `?` one character, everything else literal) matched without a
 * regular expression: the greedy two-pointer walk is O(name × glob) at worst, so a tenant's
 * `a*a*a*a*b` cannot stall the event loop on a long tool name.
 */
export function globMatch(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === '?' || glob[g] === text[t])) {
      g++;
      t++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      mark = t;
    } else if (star !== -1) {
      g = star + 1;
      t = ++mark;
    } else return false;
  }
  while (g < glob.length && glob[g] === '*') g++;
  return g === glob.length;
}

/** A matcher over a glob list: absent or empty list matches everything. */
export function globList(globs: readonly string[] | undefined): (text: string) => boolean {
  if (!globs || globs.length === 0 || globs.includes('*')) return () => true;
  const exact = new Set(globs.filter((x) => !x.includes('*') && !x.includes('?')));
  const patterns = globs.filter((x) => !exact.has(x));
  return (text) => exact.has(text) || patterns.some((p) => globMatch(p, text));
}
