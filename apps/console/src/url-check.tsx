import { useRef, useState } from 'preact/hooks';
import { api, asApiError, type ApiError, type UrlCheckResult } from './api';
import { splitError } from './ui';

/** Worth checking on its own (on blur): an absolute http(s) URL with a host. The button checks anything. */
export function plausibleHttpUrl(v: string): boolean {
  if (v.length > 2048) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Where the check of one URL is. `failed`: the registry refused the request itself (URL_REFUSED, a bad field, no such endpoint). */
type CheckState =
  | { url: string; phase: 'checking' }
  | { url: string; phase: 'done'; result: UrlCheckResult; sentCredential: boolean }
  | { url: string; phase: 'failed'; error: ApiError }
  | { url: string; phase: 'note'; message: string };

/** The live URL check of a server form. */
export interface UrlCheck {
  /** The check of the URL now in the field; nothing for another URL (an answer never shows under a URL it is not about). */
  state: CheckState | undefined;
  /** A refused check's field errors (DOM id → message): URL_REFUSED lands beside the URL field exactly as on submit. */
  fields: Record<string, string>;
  /** The refusal when it names no field on the form. */
  formError: ApiError | undefined;
  /** The URL field lost focus: check it if it looks like a URL and changed since the last check. */
  onBlur(e?: FocusEvent): void;
  /** The "Check URL" button: check whatever the field holds, again if need be. */
  check(): void;
  /** Forget it all (the form was submitted and cleared); an answer still on its way is dropped. */
  reset(): void;
  /** The form's field errors with the check's: `submitted` (the submit's) wins, except on the URL field `urlField` once the check has answered for the URL now there. */
  merge(submitted: Record<string, string>, urlField: string): Record<string, string>;
}

/**
 * `POST /v1/servers/check` for a server form. `request` gives the form's transport and credential at
 * the moment of the check (the credential is used for that request only); `initialUrl` is not
 * checked on blur until it changes (an edit form's stored URL). The check never blocks submitting.
 */
export function useUrlCheck(opts: {
  url: string;
  ids: Record<string, string>;
  request: () => { transport: string; auth: Record<string, string> };
  initialUrl?: string;
  serverId?: string;
}): UrlCheck {
  const [state, setState] = useState<CheckState | undefined>(undefined);
  const seq = useRef(0);
  const current = useRef('');
  current.current = opts.url.trim();
  const last = useRef<string | undefined>(opts.initialUrl?.trim());

  const start = async (url: string) => {
    const mine = ++seq.current;
    last.current = url;
    const { transport, auth } = opts.request();
    setState({ url, phase: 'checking' });
    let next: CheckState;
    try {
      const result = await api<UrlCheckResult>('POST', '/v1/servers/check', {
        url,
        transport,
        auth,
        ...(opts.serverId ? { serverId: opts.serverId } : {}),
      });
      next = { url, phase: 'done', result, sentCredential: auth.mode !== 'none' };
    } catch (err) {
      next = { url, phase: 'failed', error: asApiError(err) };
    }
    // A newer check (or a reset) took over: this answer is stale.
    if (mine !== seq.current) return;
    // The field changed while this one ran: its answer is about a URL no longer there.
    if (current.current !== url) {
      setState(undefined);
      last.current = undefined;
      return;
    }
    setState(next);
  };

  const shown = state && state.url === current.current ? state : undefined;
  const split = shown?.phase === 'failed' ? splitError(shown.error, opts.ids) : { fields: {}, form: undefined };
  return {
    state: shown,
    fields: split.fields,
    formError: split.form,
    onBlur: (e) => {
      // Focus went to the form's submit button: the submit checks the URL itself. Checking too would show
      // "Checking…" under the field between the press and the release, moving the button from under the
      // pointer so the click never lands.
      const to = e?.relatedTarget as HTMLElement | null | undefined;
      if (to?.getAttribute('type') === 'submit' && to.closest('form') === (e?.currentTarget as HTMLElement | null)?.closest('form')) return;
      const url = current.current;
      if (plausibleHttpUrl(url) && url !== last.current) void start(url);
    },
    check: () => {
      const url = current.current;
      if (url) void start(url);
      else {
        seq.current++;
        setState({ url, phase: 'note', message: 'Enter the URL of your MCP server first, e.g. https://mcp.example.com/mcp.' });
      }
    },
    reset: () => {
      seq.current++;
      last.current = undefined;
      setState(undefined);
    },
    merge: (submitted, urlField) => {
      const out = { ...split.fields, ...submitted };
      // The check just passed the URL now in the field through the same guard as a submit: an error
      // the last submit gave about the URL (an earlier one) no longer applies.
      if (shown?.phase === 'done') delete out[urlField];
      return out;
    },
  };
}

const KIND_LABELS: Record<string, [string, string]> = {
  prompts: ['prompt', 'prompts'],
  resources: ['resource', 'resources'],
  resourceTemplates: ['resource template', 'resource templates'],
};

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "docs 1.0.0 · speaks 2025-11-25 (legacy, streamable-http) · 2 tools: a, b · 1 prompt". */
function foundText(r: Extract<UrlCheckResult, { ok: true }>): string {
  const parts: string[] = [];
  const who = [r.serverInfo?.name, r.serverInfo?.version].filter((x): x is string => typeof x === 'string' && x !== '').join(' ');
  if (who) parts.push(who);
  parts.push(
    `speaks ${r.protocol?.version ?? 'an unstated protocol version'} (${r.protocol?.era ?? 'unknown era'}, ${r.protocol?.transport ?? 'unknown transport'})`,
  );
  const names = Array.isArray(r.tools) ? r.tools.filter((t): t is string => typeof t === 'string') : [];
  const n = typeof r.counts?.tools === 'number' ? r.counts.tools : names.length;
  const more = n > names.length ? ` and ${n - names.length} more` : '';
  parts.push(n === 0 ? 'no tools' : `${plural(n, 'tool', 'tools')}: ${names.join(', ')}${more}`);
  const others = Object.entries(KIND_LABELS)
    .map(([k, [one, many]]) => (typeof r.counts?.[k] === 'number' && r.counts[k] > 0 ? plural(r.counts[k], one, many) : ''))
    .filter(Boolean);
  if (others.length > 0) parts.push(others.join(', '));
  return parts.join(' · ');
}

/** The registry's message as a sentence (they end with or without a full stop). */
function sentence(m: string): string {
  const t = m.trim();
  return /[.?!…]$/.test(t) ? t : `${t}.`;
}

/** Each reason the check gives, in plain words, and what to do about it. */
function reasonText(r: Extract<UrlCheckResult, { ok: false }>, sentCredential: boolean, authHelp: string): string {
  switch (r.reason) {
    case 'auth_required':
      return sentCredential
        ? 'The server refused the credential (401/403) — check the token or header value below.'
        : `The server needs a credential — ${authHelp}`;
    case 'timeout':
      return sentence(r.message);
    case 'unreachable':
      return `Not reachable — ${sentence(r.message)} Check the host and port, and that the server is running and reachable from the platform.`;
    case 'not_mcp':
      return `${sentence(r.message)} Check the path: MCP endpoints usually end in /mcp (or /sse for older servers).`;
    case 'refused':
      return `Refused — ${sentence(r.message)} Use an address the platform may reach.`;
    default:
      return r.message;
  }
}

/**
 * The "Check URL" button and the status line (`#<field>-check`, which the URL field's
 * aria-describedby names) under a server form's URL field `field`: checking… (aria-busy), what
 * answered there, or why nothing usable did. `authHelp` says what to do when the server wants a credential.
 * `showWarnings`: show the registry's URL_ALREADY_REGISTERED warnings (off where the form warns live already).
 */
export function UrlCheckStatus({
  field,
  check,
  authHelp,
  showWarnings = true,
}: {
  field: string;
  check: UrlCheck;
  authHelp: string;
  showWarnings?: boolean;
}) {
  const id = `${field}-check`;
  const st = check.state;
  let tone = '';
  let text = '';
  if (st?.phase === 'checking') {
    tone = 'busy';
  } else if (st?.phase === 'done') {
    tone = st.result.ok ? 'ok' : 'fail';
    text = st.result.ok ? `✓ MCP server found — ${foundText(st.result)}` : `✗ ${reasonText(st.result, st.sentCredential, authHelp)}`;
  } else if (st?.phase === 'failed') {
    tone = 'fail';
    const onUrl = check.fields[field] !== undefined;
    text = onUrl
      ? '✗ Not checked: the URL was refused (the reason is shown with the field).'
      : Object.keys(check.fields).length > 0
        ? '✗ Not checked: fix the field marked below, then check again.'
        : st.error.status === 404
          ? 'This registry cannot check URLs yet; registering still checks the URL.'
          : `✗ Could not check the URL: ${st.error.message}`;
  } else if (st?.phase === 'note') {
    text = st.message;
  }
  return (
    <div class="url-check">
      <button type="button" onClick={check.check}>
        Check URL
      </button>
      <p id={id} class={`url-check-status ${tone}`} role="status" aria-live="polite" aria-busy={st?.phase === 'checking'} data-testid={id}>
        {st?.phase === 'checking' && (
          <>
            <span class="spinner" aria-hidden="true" /> Checking… asking the URL what it speaks (up to 8 s).
          </>
        )}
        {text}
      </p>
      {/* The same warning registering gives: a second server at one URL serves its tools twice, colliding names prefixed. */}
      {showWarnings &&
        st?.phase === 'done' &&
        (st.result.warnings ?? []).map((w) => (
          <p key={w.message} class="url-check-status warn-text" role="status" data-testid={`${id}-warning`}>
            ⚠ {w.message.replace(/^body\.url: /, '').replace(/^t/, 'T')}
          </p>
        ))}
    </div>
  );
}
