import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, humanize, type Server } from './api';
import { FormFooter, SubmitButton } from './form-footer';
import { AUTH_MODES, AuthFields, authBody, authFieldIds, authForm, checkAuthBody, missingAuthFields, type AuthForm } from './server-auth';
import { linkTo } from './router';
import { ErrorBox, Field, SelectField, useFormSubmit } from './ui';
import { UrlCheckStatus, useUrlCheck } from './url-check';

// The console's two server forms: register (POST /v1/servers) and edit (PATCH), each refusal beside its field.

/** The answer of POST /v1/servers/:id/discover, and the `discovery` of create / update. */
export interface Enqueued {
  queued: boolean;
  reason?: string;
}

/** Parses an optional whole number field: '' → null, else the number or an error message. */
function wholeNumber(v: string, min: number, max: number): number | null | string {
  const t = v.trim();
  if (!t) return null;
  if (!/^\d+$/.test(t)) return 'Enter a whole number, or leave it empty.';
  const n = Number(t);
  return n < min || n > max ? `Must be between ${min} and ${max}.` : n;
}

const REGISTER_IDS: Record<string, string> = { id: 'srv-id', name: 'srv-name', url: 'srv-url', ...authFieldIds('srv-auth') };

/** The same endpoint registered twice serves its tools twice, under renamed names: compare URLs without the noise. */
export function sameEndpoint(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const x = new URL(u.trim());
      return `${x.protocol}//${x.host.toLowerCase()}${x.pathname.replace(/\/+$/, '')}${x.search}`;
    } catch {
      return u.trim();
    }
  };
  return norm(a) === norm(b);
}

/** Register a server; `existing` are the tenant's servers (a URL already among them is warned about before submitting). */
export function RegisterForm({
  onRegistered,
  existing = [],
}: {
  onRegistered: (s: Server, discovery: Enqueued | undefined) => Promise<void>;
  existing?: readonly Server[];
}) {
  const [form, setForm] = useState({ id: '', name: '', url: '' });
  const [auth, setAuth] = useState<AuthForm>(authForm());
  const [done, setDone] = useState<ComponentChildren>('');
  const submitting = useFormSubmit(REGISTER_IDS);
  const duplicate = form.url.trim() ? existing.find((x) => sameEndpoint(x.url, form.url)) : undefined;
  const urlCheck = useUrlCheck({ url: form.url, ids: REGISTER_IDS, request: () => ({ transport: 'auto', auth: checkAuthBody(auth) }) });
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const { ref, busy } = submitting;
  const fields = urlCheck.merge(submitting.fields, 'srv-url');

  const submit = async (e: Event) => {
    e.preventDefault();
    setDone('');
    const missing: Record<string, string> = { ...missingAuthFields(auth, 'srv-auth') };
    if (!form.id.trim()) missing['srv-id'] = 'Enter an id for the server, e.g. crm.';
    if (!form.url.trim()) missing['srv-url'] = 'Enter the URL of your MCP server.';
    await submitting.run(missing, async () => {
      const body = { id: form.id.trim(), name: form.name.trim() || form.id.trim(), url: form.url.trim(), auth: authBody(auth) };
      const res = await api<{ server: Server; discovery?: Enqueued; warnings?: Array<{ code: string; message: string }> }>(
        'POST',
        '/v1/servers',
        body,
      );
      setForm({ id: '', name: '', url: '' });
      setAuth(authForm());
      urlCheck.reset();
      setDone(
        <>
          Registered "{res.server.name}".{res.discovery?.queued === false ? '' : ' Discovery has started.'}{' '}
          {(res.warnings ?? []).map((w) => (
            <span key={w.message} class="field-warning" data-testid="register-warning">
              {humanize(w.message.replace(/^body\.url: /, 'Note: '))}{' '}
            </span>
          ))}
          <a {...linkTo('tools', `?server=${encodeURIComponent(res.server.id)}`)} data-testid="review-new-tools">
            Review its tools →
          </a>
        </>,
      );
      await onRegistered(res.server, res.discovery);
    });
  };

  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="register-h">
      <h2 id="register-h">Register a server</h2>
      <div class="grid2">
        <Field
          id="srv-id"
          label="Server id"
          value={form.id}
          onInput={set('id')}
          error={fields['srv-id']}
          hint="Lowercase letters, digits, _ and -, e.g. crm"
          required
        />
        <Field
          id="srv-name"
          label="Display name"
          value={form.name}
          onInput={set('name')}
          error={fields['srv-name']}
          placeholder="Defaults to the id"
        />
      </div>
      <Field
        id="srv-url"
        label="MCP URL"
        type="url"
        value={form.url}
        onInput={set('url')}
        error={fields['srv-url']}
        placeholder="https://mcp.example.com/mcp"
        hint="Must be reachable from the platform. Private and link-local addresses and plain http are refused unless the operator allows them. Checked when you leave the field."
        required
        onBlur={urlCheck.onBlur}
        describedBy="srv-url-check"
      >
        {/* The register form warns about a registered URL live (url-duplicate, below), as the user types. */}
        <UrlCheckStatus
          field="srv-url"
          check={urlCheck}
          authHelp="choose its authentication below, then check again."
          showWarnings={false}
        />
        {duplicate && (
          <p class="field-warning" id="srv-url-duplicate" data-testid="url-duplicate">
            This URL is already registered as “{duplicate.name}” ({duplicate.id}). Registering it again serves the same tools twice: where
            names collide, the second copy's tools are renamed with a prefix (
            <span class="mono">{duplicate.id === form.id.trim() ? 'prefix' : form.id.trim() || 'id'}_tool</span>). To change how it
            connects, edit “{duplicate.name}” instead.
          </p>
        )}
      </Field>
      <AuthFields prefix="srv-auth" form={auth} set={setAuth} errors={fields} />
      <FormFooter error={submitting.formError} errorTitle="Could not register the server" notice={done} live>
        <SubmitButton busy={busy} label="Register and discover" busyLabel="Registering…" />
      </FormFooter>
    </form>
  );
}

const TRANSPORTS = [
  { value: 'auto', label: 'Automatic (Streamable HTTP, then SSE)' },
  { value: 'streamable-http', label: 'Streamable HTTP only' },
  { value: 'sse', label: 'HTTP+SSE (2024-11-05) only' },
];

/** `PATCH /v1/servers/:id` with only what changed; a new URL, transport or credential is rediscovered. */
export function EditServerForm({
  server: s,
  onSaved,
  onClose,
}: {
  server: Server;
  onSaved: (s: Server, discovery: Enqueued | undefined) => Promise<void>;
  onClose: () => void;
}) {
  const p = `edit-${s.id}`;
  const [form, setForm] = useState({
    name: s.name,
    url: s.url,
    transport: s.transport,
    toolPrefix: s.toolPrefix ?? '',
    timeoutMs: s.timeoutMs == null ? '' : String(s.timeoutMs),
    maxConcurrency: s.maxConcurrency == null ? '' : String(s.maxConcurrency),
  });
  const [changeAuth, setChangeAuth] = useState(false);
  const [auth, setAuth] = useState<AuthForm>(authForm(s));
  const [note, setNote] = useState('');
  const ids: Record<string, string> = {
    name: `${p}-name`,
    url: `${p}-url`,
    transport: `${p}-transport`,
    toolPrefix: `${p}-toolPrefix`,
    timeoutMs: `${p}-timeoutMs`,
    maxConcurrency: `${p}-maxConcurrency`,
    ...authFieldIds(`${p}-auth`),
  };
  const submitting = useFormSubmit(ids);
  const urlCheck = useUrlCheck({
    url: form.url,
    ids,
    initialUrl: s.url,
    serverId: s.id,
    request: () => ({ transport: form.transport, auth: changeAuth ? checkAuthBody(auth) : { mode: 'none' } }),
  });
  const { ref, busy } = submitting;
  const fields = urlCheck.merge(submitting.fields, ids.url);
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: Event) => {
    e.preventDefault();
    setNote('');
    const body: Record<string, unknown> = {};
    const errs: Record<string, string> = {};
    if (form.name.trim() !== s.name) {
      if (!form.name.trim()) errs[ids.name] = 'Enter a display name.';
      body.name = form.name.trim();
    }
    if (form.url.trim() !== s.url) {
      if (!form.url.trim()) errs[ids.url] = 'Enter the URL of your MCP server.';
      body.url = form.url.trim();
    }
    if (form.transport !== s.transport) body.transport = form.transport;
    if (form.toolPrefix.trim() !== (s.toolPrefix ?? '')) body.toolPrefix = form.toolPrefix.trim() || null;
    for (const [k, min, max] of [
      ['timeoutMs', 100, 600_000],
      ['maxConcurrency', 1, 10_000],
    ] as const) {
      const v = wholeNumber(form[k], min, max);
      if (typeof v === 'string') errs[ids[k]] = v;
      else if (v !== (s[k] ?? null)) body[k] = v;
    }
    if (changeAuth) {
      Object.assign(errs, missingAuthFields(auth, `${p}-auth`, true));
      body.auth = authBody(auth);
    }
    if (Object.keys(errs).length === 0 && Object.keys(body).length === 0) {
      submitting.clear();
      return setNote('Nothing changed.');
    }
    await submitting.run(errs, async () => {
      const res = await api<{ server: Server; discovery?: Enqueued }>('PATCH', `/v1/servers/${encodeURIComponent(s.id)}`, body);
      await onSaved(res.server, res.discovery);
    });
  };

  return (
    <form
      ref={ref}
      id={`edit-${s.id}`}
      class="edit"
      onSubmit={(e) => void submit(e)}
      noValidate
      aria-label={`Edit server ${s.name}`}
      data-testid={`edit-${s.id}`}
    >
      <h4>Edit {s.name}</h4>
      <div class="grid2">
        <Field id={ids.name} label="Display name" value={form.name} onInput={set('name')} error={fields[ids.name]} />
        <Field
          id={ids.url}
          label="MCP URL"
          type="url"
          value={form.url}
          onInput={set('url')}
          error={fields[ids.url]}
          hint="A new URL is checked like at registration, then rediscovered."
          onBlur={urlCheck.onBlur}
          describedBy={`${ids.url}-check`}
        >
          <UrlCheckStatus
            field={ids.url}
            check={urlCheck}
            authHelp={
              changeAuth
                ? 'choose its authentication below, then check again.'
                : 'the stored one never reaches the browser, so this check ran without it. To check with a credential, tick “Change authentication” and enter it.'
            }
          />
        </Field>
        <SelectField
          id={ids.transport}
          label="Transport"
          value={form.transport}
          onChange={set('transport')}
          options={TRANSPORTS}
          error={fields[ids.transport]}
        />
        <Field
          id={ids.toolPrefix}
          label="Tool prefix (optional)"
          value={form.toolPrefix}
          onInput={set('toolPrefix')}
          error={fields[ids.toolPrefix]}
          hint="Put before this server's tool names when they collide with another server's."
        />
        <Field
          id={ids.timeoutMs}
          label="Timeout in ms (optional)"
          inputMode="numeric"
          value={form.timeoutMs}
          onInput={set('timeoutMs')}
          error={fields[ids.timeoutMs]}
          hint="Leave empty for the platform default."
        />
        <Field
          id={ids.maxConcurrency}
          label="Max concurrent calls (optional)"
          inputMode="numeric"
          value={form.maxConcurrency}
          onInput={set('maxConcurrency')}
          error={fields[ids.maxConcurrency]}
          hint="Leave empty for no limit."
        />
      </div>
      <fieldset class="auth-change">
        <legend>Credentials</legend>
        <p class="muted small">
          Now: {AUTH_MODES.find((m) => m.value === s.auth.mode)?.label ?? s.auth.mode}
          {s.auth.hasSecret ? ' (a secret is stored)' : ''}. Stored secrets are never shown. To change authentication you must enter the
          secret again: an empty secret is refused, it does not keep the old one.
        </p>
        <label class="check">
          <input type="checkbox" checked={changeAuth} onChange={(e) => setChangeAuth((e.currentTarget as HTMLInputElement).checked)} />{' '}
          Change authentication
        </label>
        {changeAuth && <AuthFields prefix={`${p}-auth`} form={auth} set={setAuth} errors={fields} />}
      </fieldset>
      {submitting.formError && <ErrorBox error={submitting.formError} title="Could not save the server" />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
        <button type="button" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <span role="status" aria-live="polite" class="muted">
          {note}
        </span>
      </div>
    </form>
  );
}
