import { useEffect, useState } from 'preact/hooks';
import { api, asApiError, type ApiError, type Item, type Server } from './api';
import { notifyChanged } from './events';
import { ErrorBox, splitError } from './ui';

/** The draft preview's answer as far as this panel reads it: the name each item gets. */
interface DraftNames {
  items: Array<{ kind: string; name: string; exposedName: string }>;
}

const idOf = (serverId: string, tool: string) => `pub-${serverId}-${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * "Publish all ready" for one server: asks the registry (a draft preview, nothing written) which
 * name each ready tool would get, shows every rename before anything goes live, lets the tenant
 * type another name, and publishes them in one request.
 */
export function PublishReady({
  server,
  tools,
  onDone,
  onClose,
}: {
  server: Server;
  tools: Item[];
  onDone: (message: string) => Promise<void>;
  onClose: () => void;
}) {
  const [names, setNames] = useState<Record<string, string>>({});
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  // A preview under way (names being asked for) does not block publishing: publishing checks the names again.
  const [checking, setChecking] = useState(true);

  const body = () => ({
    serverId: server.id,
    items: tools.map((t) => ({
      kind: 'tool' as const,
      name: t.name,
      ...(chosen[t.name]?.trim() ? { exposedName: chosen[t.name]!.trim() } : {}),
    })),
  });

  const preview = async () => {
    setChecking(true);
    setError(undefined);
    try {
      const res = await api<DraftNames>('POST', '/v1/preview', body());
      setNames(Object.fromEntries(res.items.map((i) => [i.name, i.exposedName])));
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setChecking(false);
    }
  };
  useEffect(() => void preview(), []);

  const publish = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await api<{ items?: Array<{ exposedName: string }> }>('POST', '/v1/publications', body());
      notifyChanged();
      await onDone(`Published ${res.items?.length ?? tools.length} tool${tools.length === 1 ? '' : 's'} of ${server.name}.`);
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  const map = Object.fromEntries(tools.map((t, i) => [`items.${i}.exposedName`, idOf(server.id, t.name)]));
  const split = splitError(error, map);
  const renamed = tools.filter((t) => names[t.name] !== undefined && names[t.name] !== t.name);
  return (
    <div class="publish-panel" role="region" aria-labelledby={`pub-${server.id}-h`} data-testid={`publish-ready-${server.id}`}>
      <h3 id={`pub-${server.id}-h`}>
        Publish {tools.length} ready tool{tools.length === 1 ? '' : 's'} of {server.name}
      </h3>
      {renamed.length > 0 && (
        <p class="field-warning" data-testid={`collisions-${server.id}`} role="status">
          {renamed.length === 1 ? '1 name is' : `${renamed.length} names are`} already taken in this tenant:{' '}
          {renamed.length === 1 ? 'it' : 'they'} would go live under another name, shown below. Clients see only the new name; type another
          one if you prefer.
        </p>
      )}
      <table class="data compact">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Clients will call it</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((t) => {
            const id = idOf(server.id, t.name);
            const will = names[t.name];
            const err = split.fields[id];
            return (
              <tr key={t.name} data-testid={id}>
                <td class="mono">{t.name}</td>
                <td>
                  <div class="inline-field">
                    <label class="sr-only" for={id}>
                      Name for {t.name}
                    </label>
                    <input
                      id={id}
                      class="mono"
                      value={chosen[t.name] ?? ''}
                      placeholder={will ?? t.name}
                      aria-invalid={err ? 'true' : undefined}
                      aria-describedby={err ? `${id}-error` : undefined}
                      onInput={(e) => setChosen((c) => ({ ...c, [t.name]: e.currentTarget.value }))}
                      onBlur={() => void preview()}
                    />
                    {will !== undefined && will !== t.name && !chosen[t.name] && <span class="badge warn">renamed to {will}</span>}
                    {err && (
                      <p class="field-error" id={`${id}-error`}>
                        {err}
                      </p>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {split.form && <ErrorBox error={split.form} title="Could not publish" />}
      <div class="row">
        <button type="button" class="primary" disabled={busy} onClick={() => void publish()}>
          {busy ? 'Working…' : `Publish ${tools.length} tool${tools.length === 1 ? '' : 's'}`}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        {checking && (
          <span class="muted small" role="status">
            Asking the registry which names they get…
          </span>
        )}
      </div>
    </div>
  );
}
