import { useEffect, useState } from 'preact/hooks';
import { api, type Server } from '../api';
import { notifyChanged } from '../events';
import { Allowed } from '../role';
import { AUTH_MODES } from '../server-auth';
import { RegistryImportForm } from '../registry-import';
import { EditServerForm, RegisterForm, type Enqueued } from '../server-forms';
import { Badge, ErrorBox, LoadStatus, useActions, useLoad, When } from '../ui';

/** How long the page keeps polling a discovery before it says so and stops (the worker retries with backoff). */
const POLL_LIMIT_MS = 3 * 60_000;
const POLL_EVERY_MS = 1_000;

/** Registered upstream servers: register and edit (errors beside the fields), live discovery status, health. */
export function ServersPage() {
  const servers = useLoad(() => api<{ servers: Server[] }>('GET', '/v1/servers').then((r) => r.servers));
  // Servers whose discovery we started here and watch until it reports (registries without `discovery`).
  const [watching, setWatching] = useState<Record<string, Watch>>({});
  const [pollSince, setPollSince] = useState<number | undefined>(undefined);
  const [gaveUp, setGaveUp] = useState(false);
  const actions = useActions(servers.reload);
  const { setNotice } = actions;
  const [editing, setEditing] = useState<string | undefined>(undefined);

  const list = servers.data ?? [];
  const busy = (s: Server) => isBusy(s, watching[s.id]);

  useEffect(() => {
    if (!servers.data) return;
    // A watch ends when discovery reports (new lastDiscoveredAt, a new error, a settled `discovery`).
    const next = { ...watching };
    let changed = false;
    for (const [id, w] of Object.entries(watching)) {
      const s = servers.data.find((x) => x.id === id);
      if (!s || !isBusy(s, w)) {
        delete next[id];
        changed = true;
      }
    }
    if (changed) setWatching(next);
    const active = servers.data.some((s) => isBusy(s, next[s.id]));
    if (!active) {
      if (pollSince !== undefined) {
        setPollSince(undefined);
        // Discovery may have changed published tools: the Review count follows.
        notifyChanged();
      }
      return;
    }
    const since = pollSince ?? Date.now();
    if (pollSince === undefined) setPollSince(since);
    if (Date.now() - since > POLL_LIMIT_MS) {
      setGaveUp(true);
      return;
    }
    const t = setTimeout(() => void servers.reload(), POLL_EVERY_MS);
    return () => clearTimeout(t);
  }, [servers.data]);

  const watch = (s: Server) => {
    setGaveUp(false);
    setPollSince(undefined);
    setWatching((w) => ({ ...w, [s.id]: watchOf(s) }));
  };

  const unwatch = (s: Server) => setWatching((w) => Object.fromEntries(Object.entries(w).filter(([id]) => id !== s.id)));

  const rediscover = (s: Server) =>
    actions.run(async () => {
      watch(s);
      try {
        const res = await api<Enqueued>('POST', `/v1/servers/${encodeURIComponent(s.id)}/discover`);
        if (res && res.queued === false) {
          unwatch(s);
          return `Discovery of "${s.name}" was not started: ${res.reason ?? 'the registry did not queue it'}.`;
        }
      } catch (err) {
        unwatch(s);
        throw err;
      }
    });

  const remove = async (s: Server) => {
    if (!confirm(`Remove server "${s.name}" (${s.id})? Its published tools stop being served.`)) return;
    await actions.run(async () => {
      await api('DELETE', `/v1/servers/${encodeURIComponent(s.id)}`);
      notifyChanged();
      return `Removed "${s.name}".`;
    });
  };

  return (
    <section aria-labelledby="servers-h">
      <h1 id="servers-h">Servers</h1>
      <p class="lead">
        The MCP servers your tenant fronts. Register one by URL; Switchboard discovers its tools, then you review and publish them.
      </p>
      <Allowed needed="admin" what="registering a server">
        <RegisterForm
          existing={list}
          onRegistered={async (s, discovery) => {
            if (discovery?.queued === false)
              setNotice(`Discovery of "${s.name}" was not started: ${discovery.reason ?? 'the registry did not queue it'}.`);
            else watch(s);
            await servers.reload();
          }}
        />
        <RegistryImportForm
          onImported={async (s, discovery) => {
            if (discovery?.queued === false)
              setNotice(`Discovery of "${s.name}" was not started: ${discovery.reason ?? 'the registry did not queue it'}.`);
            else watch(s);
            await servers.reload();
          }}
        />
      </Allowed>
      <h2>Registered servers</h2>
      {actions.error && <ErrorBox error={actions.error} title="That did not work" />}
      {actions.notice && (
        <p class="notice" role="status">
          {actions.notice}
        </p>
      )}
      <LoadStatus
        load={servers}
        errorTitle="Could not load servers"
        loadingLabel="Loading servers…"
        empty="No servers yet. Register your MCP server's URL above to start."
      />
      {gaveUp && (
        <div class="notice" role="status">
          Discovery is taking longer than usual; the registry keeps retrying in the background.{' '}
          <button
            type="button"
            onClick={() => {
              setGaveUp(false);
              setPollSince(undefined);
              void servers.reload();
            }}
          >
            Check again
          </button>
        </div>
      )}
      {list.length > 0 && (
        <ul class="servers" data-testid="servers-table">
          {list.map((s) => (
            <li key={s.id} class="card server" data-testid={`server-${s.id}`}>
              <div class="server-head">
                <div>
                  <h3>{s.name}</h3>
                  <div class="muted small mono">{s.id}</div>
                </div>
                <div class="server-status" data-testid={`server-${s.id}-status`}>
                  <DiscoveryStatus server={s} busy={busy(s)} />
                </div>
                <Allowed needed="admin">
                  <div class="actions">
                    <button
                      type="button"
                      onClick={() => setEditing(editing === s.id ? undefined : s.id)}
                      aria-expanded={editing === s.id}
                      aria-controls={`edit-${s.id}`}
                    >
                      {editing === s.id ? 'Close editor' : 'Edit'}
                    </button>
                    <button type="button" onClick={() => void rediscover(s)} disabled={busy(s)}>
                      Rediscover
                    </button>
                    <button type="button" class="danger" onClick={() => void remove(s)}>
                      Remove
                    </button>
                  </div>
                </Allowed>
              </div>
              <dl class="facts">
                <dt>URL</dt>
                <dd class="mono wrap">{s.url}</dd>
                <dt>Authentication</dt>
                <dd>
                  {AUTH_MODES.find((m) => m.value === s.auth.mode)?.label ?? s.auth.mode}
                  {s.auth.hasSecret && <span class="muted small"> · secret stored</span>}
                </dd>
                <dt>Last discovered</dt>
                <dd>
                  <When at={s.lastDiscoveredAt} />
                </dd>
              </dl>
              {editing === s.id && (
                <EditServerForm
                  server={s}
                  onClose={() => setEditing(undefined)}
                  onSaved={async (saved, discovery) => {
                    setEditing(undefined);
                    setNotice(
                      `Saved "${saved.name}".${discovery?.queued ? ' Rediscovery has started.' : discovery?.reason ? ` Discovery was not started: ${discovery.reason}.` : ''}`,
                    );
                    if (discovery?.queued) watch(saved);
                    notifyChanged();
                    await servers.reload();
                  }}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const COUNT_LABELS: Record<string, [string, string]> = {
  tools: ['tool', 'tools'],
  prompts: ['prompt', 'prompts'],
  resources: ['resource', 'resources'],
  resourceTemplates: ['resource template', 'resource templates'],
};

/** "3 tools, 1 prompt" from discovery counts (kinds with none left out). */
function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => typeof n === 'number' && n > 0)
    .map(([k, n]) => `${n} ${(COUNT_LABELS[k] ?? [k, k])[n === 1 ? 0 : 1]}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing to publish';
}

/** Discovery progress in words: queued / running (live), the counts it found, or its error, plainly. */
function DiscoveryStatus({ server: s, busy }: { server: Server; busy: boolean }) {
  const d = s.discovery;
  if (busy) {
    const what = d?.state === 'queued' ? (d.attempt ? 'Waiting to retry discovery…' : 'Queued for discovery…') : 'Discovering…';
    return (
      <div>
        <span class="loading inline" role="status">
          <span class="spinner" aria-hidden="true" /> {what}
          {d?.attempt !== undefined && d.attempt > 1 && <span class="muted small"> attempt {d.attempt}</span>}
          {d?.state === 'running' && d.startedAt && (
            <span class="muted small">
              {' '}
              · started <When at={d.startedAt} />
            </span>
          )}
        </span>
        {d?.error && <p class="field-warning">The last attempt failed: {d.error}</p>}
      </div>
    );
  }
  // Per-user OAuth servers are discovered when a user connects through the auth service, not here.
  if (s.auth.mode === 'oauth_user' && s.health !== 'ok') {
    return (
      <div>
        <Badge tone="muted">Discovered per user</Badge>
        <p class="muted small">Its tools are discovered when a user connects and signs in to it.</p>
      </div>
    );
  }
  const failed = d ? d.state === 'error' : s.health === 'error';
  if (failed) {
    const why = d?.error ?? s.lastError ?? 'The registry did not say why.';
    return (
      <div>
        <Badge tone="fail">Discovery failed</Badge>
        {d?.finishedAt && (
          <span class="muted small">
            {' '}
            <When at={d.finishedAt} />
          </span>
        )}
        <p class="field-error" data-testid={`server-${s.id}-error`}>
          {why}
        </p>
        {nextStep(why) && (
          <p class="hint" data-testid={`server-${s.id}-next-step`}>
            What to do: {nextStep(why)}
          </p>
        )}
      </div>
    );
  }
  return (
    <div>
      <Badge tone="ok">Healthy</Badge>
      {d?.counts && <span class="muted small"> · found {countsText(d.counts)}</span>}
    </div>
  );
}

/** What to do about a failed discovery, from the network or HTTP error it names (undefined when nothing specific helps). */
export function nextStep(error: string): string | undefined {
  const steps: Array<[RegExp, string]> = [
    [
      /ECONNREFUSED|connection refused/i,
      "Nothing is listening at that address. Start the server, or check the URL's host and port (Edit).",
    ],
    [/ENOTFOUND|EAI_AGAIN|getaddrinfo/i, "The host name does not resolve. Check the URL's host for a typo (Edit)."],
    [
      /ETIMEDOUT|timed? ?out|aborted/i,
      'The server did not answer in time. Check it is reachable from the registry, or raise its timeout (Edit).',
    ],
    [/ECONNRESET|socket hang up/i, 'The server closed the connection. Check its logs, and that the URL speaks MCP over HTTP.'],
    [
      /certificate|CERT_|self.signed|TLS|SSL/i,
      "The server's TLS certificate was not accepted. Use a certificate from a public CA for that host.",
    ],
    [
      /\b401\b|\b403\b|unauthori[sz]ed|forbidden/i,
      'The server wants a credential. Edit the server, tick “Change authentication” and enter it.',
    ],
    [/\b404\b|not found/i, "Nothing answers at that path. Check the URL's path (often /mcp)."],
  ];
  return steps.find(([re]) => re.test(error))?.[1];
}

/** A discovery being watched: what the server looked like when it started. */
interface Watch {
  since: string | null;
  sinceError: string | null;
  sinceFinished: string | null;
  started: number;
}

/** Without `discovery`, a failed rediscovery changes no timestamp, so a watch also ends on a new error or after a while. */
const WATCH_MS = 30_000;

function watchOf(s: Server): Watch {
  return { since: s.lastDiscoveredAt, sinceError: s.lastError, sinceFinished: s.discovery?.finishedAt ?? null, started: Date.now() };
}

function isBusy(s: Server, w: Watch | undefined): boolean {
  // The registry never discovers per-user OAuth servers itself: nothing to wait for.
  if (s.auth.mode === 'oauth_user') return false;
  const d = s.discovery;
  if (d) {
    if (d.state === 'queued' || d.state === 'running') return true;
    // Just asked for a rediscovery: the old settled state may still show until the job is picked up.
    return w !== undefined && (d.finishedAt ?? null) === w.sinceFinished && Date.now() - w.started < WATCH_MS / 6;
  }
  if (s.health === 'pending') return true;
  if (!w) return false;
  const settled =
    s.lastDiscoveredAt !== w.since || (s.health === 'error' && s.lastError !== w.sinceError) || Date.now() - w.started > WATCH_MS;
  return !settled;
}
