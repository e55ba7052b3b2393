import { linearRegExp } from './linear-reg-exp';

/** A compiled URI template: call it with a URI to get its variables, or null when it does not match. */
export type UriTemplateMatcher = (uri: string) => Record<string, string> | null;

const EXPRESSION = /\{([+]?)([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\}/g;

/**
 * Compiles an RFC 6570 template for matching: level-1 `{var}` matches one or more characters
 * other than `/`, `?` and `#` (those are percent-encoded by simple expansion); `{+var}`
 * (reserved expansion) may span them. Matched values are percent-decoded. A template with
 * other operators or lists (`{?q}`, `{a,b}`) never matches. The template is tenant data: several
 * `{+var}` make a backtracking engine polynomial in the URI, so it runs on RE2 (linearRegExp).
 */
export function compileUriTemplate(template: string): UriTemplateMatcher {
  // Braces left after removing supported expressions belong to ones this matcher does not understand.
  if (/[{}]/.test(template.replace(EXPRESSION, ''))) return () => null;
  const names: string[] = [];
  let pattern = '';
  let last = 0;
  for (const m of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, m.index));
    pattern += m[1] === '+' ? '(.+?)' : '([^/?#]+)';
    names.push(m[2] as string);
    last = m.index + m[0].length;
  }
  pattern += escapeRegExp(template.slice(last));
  let regex: ReturnType<typeof linearRegExp>;
  try {
    regex = linearRegExp(`^${pattern}$`);
  } catch {
    // Only an oversized template gets here (the pieces are escaped): it matches nothing.
    return () => null;
  }
  return (uri) => {
    const m = regex.exec(uri);
    if (!m) return null;
    const vars: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) {
      const raw = m[i + 1] as string;
      let value: string;
      try {
        value = decodeURIComponent(raw);
      } catch {
        return null;
      }
      const name = names[i] as string;
      // The same variable twice must bind the same value.
      if (name in vars && vars[name] !== value) return null;
      vars[name] = value;
    }
    return vars;
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
