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

const STYLE =
  '<style>label{display:block;font-weight:600;margin-top:1rem}' +
  'input{display:block;width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;margin-top:.25rem}' +
  '.hint{margin:.25rem 0 0;color:#4a4a4a;font-size:.9rem}.field-error{margin:.25rem 0 0;color:#9b0000;font-weight:600}' +
  '[aria-invalid=true]{border:2px solid #9b0000}' +
  '.alert{border:2px solid #9b0000;background:#fdeeee;color:#5c0000;padding:.5rem .75rem;margin:1rem 0}' +
  'button{margin-top:1.5rem;padding:.5rem 1.25rem;font-size:1rem}</style>';

/**
 * The body of the console sign-in page: labelled fields with autofill hints, field messages
 * tied to their inputs (aria-describedby, aria-invalid), one role="alert" message, and
 * autofocus on the first field that has an error or is empty.
 */
export function consoleLoginPage(p: ConsoleLoginPageInput): string {
  const errors = p.fieldErrors ?? {};
  const values: Record<LoginField, string> = { workspace: p.workspace, username: p.username, password: '' };
  const focus = FIELDS.find((f) => errors[f.name]) ?? FIELDS.find((f) => values[f.name] === '');
  const fieldMessages = FIELDS.flatMap((f) => (errors[f.name] ? [errors[f.name] ?? ''] : []));
  const alert = p.alert ?? (fieldMessages.length ? `Check ${fieldMessages.length === 1 ? 'this field' : 'these fields'}: ${fieldMessages.join(' ')}` : undefined);
  const fields = FIELDS.map((f) => {
    const error = errors[f.name];
    const described = [f.hint ? `${f.name}-hint` : '', error ? `${f.name}-error` : ''].filter(Boolean).join(' ');
    const attrs = [
      `id="${f.name}"`,
      `name="${f.name}"`,
      `type="${f.type}"`,
      f.autocomplete ? `autocomplete="${f.autocomplete}"` : '',
      f.type === 'text' ? 'autocapitalize="none" spellcheck="false"' : '',
      'required',
      `maxlength="${f.maxLength}"`,
      values[f.name] ? `value="${escapeHtml(values[f.name])}"` : '',
      described ? `aria-describedby="${described}"` : '',
      error ? 'aria-invalid="true"' : '',
      focus === f ? 'autofocus' : '',
    ].filter(Boolean);
    return (
      `<div><label for="${f.name}">${f.label}</label><input ${attrs.join(' ')}>` +
      (f.hint ? `<p class="hint" id="${f.name}-hint">${f.hint}</p>` : '') +
      (error ? `<p class="field-error" id="${f.name}-error">${escapeHtml(error)}</p>` : '') +
      '</div>'
    );
  }).join('');
  return (
    STYLE +
    '<main><h1>Sign in to the Switchboard console</h1>' +
    (alert ? `<p class="alert" role="alert">${escapeHtml(alert)}</p>` : '') +
    `<form method="post" action="${escapeHtml(p.action)}"><input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">${fields}<button type="submit">Sign in</button></form></main>`
  );
}
