import { escapeHtml } from '../http/html';

/** The three fields of the console sign-in form. */
export type LoginField = 'workspace' | 'username' | 'password';

export interface ConsoleLoginPageInput {
  /** Where the form posts. */
  action: string;
  csrf: string;
  /** Values to keep in the form (never the password). */
  workspace: string;
  username: string;
  /**
   * Where "Use another workspace" leads, when the workspace came from the console (login_hint):
   * it is then shown as text and sent in a hidden field, so it is typed once, at the console.
   */
  changeWorkspace?: string;
  /** Messages beside the fields they concern. */
  fieldErrors?: Partial<Record<LoginField, string>>;
  /** A message about the whole attempt (wrong credentials, unavailable, rate limited). */
  alert?: string;
}

const FIELDS: Array<{ name: LoginField; label: string; type: string; autocomplete?: string; maxLength: number; hint?: string }> = [
  // A workspace id is not one of the HTML autofill field names ("organization" is a company's
  // display name), so the browser's own history is the best it can get.
  { name: 'workspace', label: 'Workspace', type: 'text', maxLength: 63, hint: 'Your workspace id, for example <code>acme</code>.' },
  { name: 'username', label: 'User name', type: 'text', autocomplete: 'username', maxLength: 64 },
  { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', maxLength: 1024 },
];

/** The Switchboard mark, as the console draws it (apps/console/src/brand.tsx). Inline SVG: no request, nothing for the CSP to allow. */
export const SWITCHBOARD_MARK =
  '<svg class="mark" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">' +
  '<rect width="24" height="24" rx="6" fill="#0b5cad"/>' +
  '<path d="M6 8h4l4 8h4" stroke="#fff" stroke-width="2" fill="none" stroke-linecap="round" stroke-linejoin="round"/>' +
  '<circle cx="6" cy="8" r="2.2" fill="#fff"/><circle cx="18" cy="16" r="2.2" fill="#fff"/></svg>';

// The console's colours and type (apps/console/src/styles.css). The page's CSP allows inline
// styles but no scripts, and this page has none.
const STYLE =
  '<style>:root{--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--line:#d0d7de;--accent:#0b5cad;--fail:#b42318;--fail-bg:#ffebe9;' +
  "font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}" +
  'body{max-width:none;margin:0;padding:0}*{box-sizing:border-box}' +
  '.top{display:flex;align-items:center;gap:.6rem;padding:.6rem 1.25rem;background:#0d2847;color:#fff;font-weight:700;letter-spacing:.02em}' +
  'main{max-width:26rem;margin:3rem auto;padding:1.5rem;background:#fff;border:1px solid var(--line);border-radius:10px}' +
  '@media (max-width:30rem){main{margin:1rem;padding:1rem}}' +
  'h1{font-size:1.4rem;margin:0 0 1rem}code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88em}' +
  'label{display:block;font-weight:600;margin:1rem 0 .2rem}' +
  'input{display:block;width:100%;font:inherit;padding:.45rem .6rem;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--fg)}' +
  ':focus-visible{outline:3px solid #4c9aff;outline-offset:2px}' +
  '.hint{margin:.2rem 0 0;color:var(--muted);font-size:.85em}' +
  ".field-error{margin:.25rem 0 0;color:var(--fail);font-size:.9em;font-weight:500}.field-error::before{content:'\\26A0  '}" +
  '[aria-invalid=true]{border-color:var(--fail);box-shadow:0 0 0 1px var(--fail)}' +
  '.alert{border:1px solid #f5b5ae;background:var(--fail-bg);color:var(--fail);border-radius:8px;padding:.6rem .9rem;margin:0 0 1rem}' +
  '.workspace{margin:0;padding:.5rem .75rem;background:var(--bg);border:1px solid var(--line);border-radius:6px}' +
  '.workspace strong{font-family:ui-monospace,Menlo,Consolas,monospace}.workspace a{margin-left:.5rem}' +
  'a{color:var(--accent)}' +
  'button{display:block;width:100%;margin-top:1.5rem;padding:.55rem 1rem;font:inherit;font-weight:600;color:#fff;background:var(--accent);border:1px solid var(--accent);border-radius:6px;cursor:pointer}' +
  'button:hover{background:#094c8f}</style>';

function fieldHtml(f: (typeof FIELDS)[number], value: string, error: string | undefined, focus: boolean): string {
  const described = [f.hint ? `${f.name}-hint` : '', error ? `${f.name}-error` : ''].filter(Boolean).join(' ');
  const attrs = [
    `id="${f.name}"`,
    `name="${f.name}"`,
    `type="${f.type}"`,
    f.autocomplete ? `autocomplete="${f.autocomplete}"` : '',
    f.type === 'text' ? 'autocapitalize="none" spellcheck="false"' : '',
    'required',
    `maxlength="${f.maxLength}"`,
    value ? `value="${escapeHtml(value)}"` : '',
    described ? `aria-describedby="${described}"` : '',
    error ? 'aria-invalid="true"' : '',
    focus ? 'autofocus' : '',
  ].filter(Boolean);
  return (
    `<div><label for="${f.name}">${f.label}</label><input ${attrs.join(' ')}>` +
    (f.hint ? `<p class="hint" id="${f.name}-hint">${f.hint}</p>` : '') +
    (error ? `<p class="field-error" id="${f.name}-error">${escapeHtml(error)}</p>` : '') +
    '</div>'
  );
}

/**
 * The body of the console sign-in page: labelled fields with autofill hints, field messages
 * tied to their inputs (aria-describedby, aria-invalid), one role="alert" message, and
 * autofocus on the first field that has an error or is empty. A workspace handed over by the
 * console is shown, not asked again.
 */
export function consoleLoginPage(p: ConsoleLoginPageInput): string {
  const errors = p.fieldErrors ?? {};
  const fixed = p.changeWorkspace !== undefined && p.workspace !== '' && !errors.workspace;
  const shown = fixed ? FIELDS.filter((f) => f.name !== 'workspace') : FIELDS;
  const values: Record<LoginField, string> = { workspace: p.workspace, username: p.username, password: '' };
  const focus = shown.find((f) => errors[f.name]) ?? shown.find((f) => values[f.name] === '');
  const fieldMessages = FIELDS.flatMap((f) => (errors[f.name] ? [errors[f.name] ?? ''] : []));
  const alert =
    p.alert ??
    (fieldMessages.length ? `Check ${fieldMessages.length === 1 ? 'this field' : 'these fields'}: ${fieldMessages.join(' ')}` : undefined);
  const workspace = fixed
    ? `<input type="hidden" name="workspace" value="${escapeHtml(p.workspace)}">` +
      `<p class="workspace" id="workspace-fixed">Workspace <strong>${escapeHtml(p.workspace)}</strong>` +
      `<a href="${escapeHtml(p.changeWorkspace ?? '')}">Use another workspace</a></p>`
    : '';
  const fields = shown.map((f) => fieldHtml(f, values[f.name], errors[f.name], focus === f)).join('');
  return (
    STYLE +
    `<header class="top">${SWITCHBOARD_MARK}<span>Switchboard</span></header>` +
    '<main><h1>Sign in to the Switchboard console</h1>' +
    (alert ? `<p class="alert" role="alert">${escapeHtml(alert)}</p>` : '') +
    `<form method="post" action="${escapeHtml(p.action)}"><input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">${workspace}${fields}<button type="submit">Sign in</button></form></main>`
  );
}
