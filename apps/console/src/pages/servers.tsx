import { useEffect, useState } from 'preact/hooks';
import { api, asApiError, type ApiError, type Server } from '../api';
import { Badge, Empty, ErrorBox, Field, Spinner, splitError, useLoad, When } from '../ui';

/** How long the page keeps polling a discovery before it says so and stops (the worker retries with backoff). */
const POLL_LIMIT_MS = 3 * 60_000;
const POLL_EVERY_MS = 1_000;

/** Registered upstream servers: register (SSRF/validation errors beside the fields), discovery status, health. */
export function ServersPage() {
  const servers = useLoad(() => api<{ servers: Server[] }>('GET', '/v1/servers').then((r) => r.servers));
  // Servers whose discovery we are watching: id → lastDiscoveredAt when the watch started.
  const [watching, setWatching] = useState<Record<string, Watch>>({});
  const [gaveUp, setGaveUp] = useState(false);

  const list = servers.data ?? [];
  const busy = (s: Server) => s.health === 'pending' || (watching[s.id] !== undefined && !settled(s, watching[s.id]));

  useEffect(() => {
    if (!servers.data) return;
    // A watch ends when discovery reports (new lastDiscoveredAt, or health leaves pending).
    const next = { ...watching };
    let changed = false;
    for (const [id, w] of Object.entries(watching)) {
      const s = servers.data.find((x) => x.id === id);
      if (!s || (s.health !== 'pending' && settled(s, w))) {
        delete next[id];
        changed = true;
      }
    }
    if (changed) setWatching(next);
    const active = servers.data.some(busy);
    if (!active) return;
    const oldest = Math.min(Date.now(), ...Object.values(next).map((w) => w.started));
    if (Date.now() - oldest > POLL_LIMIT_MS) {
      setGaveUp(true);
      return;
    }
    const t = setTimeout(() => void servers.reload(), POLL_EVERY_MS);
    return () => clearTimeout(t);
  }, [servers.data]);

  const rediscover = async (s: Server) => {
    setGaveUp(false);
    setWatching((w) => ({ ...w, [s.id]: watchOf(s) }));
    try {
      await api('POST', `/v1/servers/${encodeURIComponent(s.id)}/discover`);
    } catch (err) {
      setWatching((w) => Object.fromEntries(Object.entries(w).filter(([id]) => id !== s.id)));
      alertError(asApiError(err));
    }
    await servers.reload();
  };
  const [actionError, setActionError] = useState<ApiError | undefined>(undefined);
  const alertError = (e: ApiError) => setActionError(e);

  const remove = async (s: Server) => {
    if (!confirm(`Remove server "${s.name}" (${s.id})? Its published tools stop being served.`)) return;
    try {
      await api('DELETE', `/v1/servers/${encodeURIComponent(s.id)}`);
      setActionError(undefined);
    } catch (err) {
      alertError(asApiError(err));
    }
    await servers.reload();
  };

  return (
    <section aria-labelledby="servers-h">
      <h1 id="servers-h">Servers</h1>
      <p class="lead">The MCP servers your tenant fronts. Register one by URL; Switchboard discovers its tools, then you review and publish them.</p>
      <RegisterForm
        onRegistered={async (s) => {
          setGaveUp(false);
          setWatching((w) => ({ ...w, [s.id]: watchOf(s) }));
          await servers.reload();
        }}
      />
      <h2>Registered servers</h2>
      {actionError && <ErrorBox error={actionError} title="That did not work" />}
      {servers.error && <ErrorBox error={servers.error} title="Could not load servers" retry={() => void servers.reload()} />}
      {!servers.data && servers.loading && <Spinner label="Loading servers…" />}
      {servers.data && list.length === 0 && <Empty>No servers yet. Register your MCP server's URL above to start.</Empty>}
      {gaveUp && <p class="notice">Discovery is taking longer than usual; the registry keeps retrying. Reload the page to check again.</p>}
      {list.length > 0 && (
        <table class="data" data-testid="servers-table">
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">URL</th>
              <th scope="col">Discovery</th>
              <th scope="col">Last discovered</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => (
              <tr key={s.id} data-testid={`server-${s.id}`}>
                <td>
                  <strong>{s.name}</strong>
                  <div class="muted small">{s.id}</div>
                </td>
                <td class="mono wrap">{s.url}</td>
                <td data-testid={`server-${s.id}-status`}>
                  {busy(s) ? (
                    <span class="loading inline" role="status">
                      <span class="spinner" aria-hidden="true" /> Discovering…
                    </span>
                  ) : s.health === 'ok' ? (
                    <Badge tone="ok">Healthy</Badge>
                  ) : (
                    <Badge tone="fail">Error</Badge>
                  )}
                  {!busy(s) && s.health === 'error' && s.lastError && <p class="field-error">{s.lastError}</p>}
                </td>
                <td>
                  <When at={s.lastDiscoveredAt} />
                </td>
                <td class="actions">
                  <button type="button" onClick={() => void rediscover(s)} disabled={busy(s)}>
                    Rediscover
                  </button>
                  <button type="button" class="danger" onClick={() => void remove(s)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A discovery being watched: what the server looked like when it started. */
interface Watch {
  since: string | null;
  sinceError: string | null;
  started: number;
}

/** A failed rediscovery changes no timestamp, so a watch also ends on a new error or after a while (the row then shows what it knows). */
const WATCH_MS = 30_000;

function watchOf(s: Server): Watch {
  return { since: s.lastDiscoveredAt, sinceError: s.lastError, started: Date.now() };
}

function settled(s: Server, w: Watch): boolean {
  return s.lastDiscoveredAt !== w.since || (s.health === 'error' && s.lastError !== w.sinceError) || Date.now() - w.started > WATCH_MS;
}

const FIELD_IDS: Record<string, string> = { id: 'srv-id', name: 'srv-name', url: 'srv-url', 'auth.token': 'srv-token', auth: 'srv-token' };

function RegisterForm({ onRegistered }: { onRegistered: (s: Server) => Promise<void> }) {
  const [form, setForm] = useState({ id: '', name: '', url: '', token: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [done, setDone] = useState('');
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const { fields, form: formError } = splitError(error, FIELD_IDS);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone('');
    try {
      const body = { id: form.id.trim(), name: form.name.trim() || form.id.trim(), url: form.url.trim(), auth: form.token ? { mode: 'bearer', token: form.token } : { mode: 'none' } };
      const res = await api<{ server: Server }>('POST', '/v1/servers', body);
      setForm({ id: '', name: '', url: '', token: '' });
      setDone(`Registered "${res.server.name}". Discovery has started.`);
      await onRegistered(res.server);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="register-h">
      <h2 id="register-h">Register a server</h2>
      <div class="grid2">
        <Field id="srv-id" label="Server id" value={form.id} onInput={set('id')} error={fields['srv-id']} hint="Lowercase letters, digits, _ and -, e.g. crm" required />
        <Field id="srv-name" label="Display name" value={form.name} onInput={set('name')} error={fields['srv-name']} placeholder="Defaults to the id" />
      </div>
      <Field
        id="srv-url"
        label="MCP URL"
        type="url"
        value={form.url}
        onInput={set('url')}
        error={fields['srv-url']}
        placeholder="https://mcp.example.com/mcp"
        hint="Must be reachable from the platform. Private and link-local addresses and plain http are refused unless the operator allows them."
        required
      />
      <Field id="srv-token" label="Bearer token (optional)" type="password" value={form.token} onInput={set('token')} error={fields['srv-token']} hint="Sent to your server on every call; stored encrypted, never shown again." />
      {formError && <ErrorBox error={formError} title="Could not register the server" />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Registering…' : 'Register and discover'}
        </button>
        <span role="status" aria-live="polite" class="ok-text">
          {done}
        </span>
      </div>
    </form>
  );
}
