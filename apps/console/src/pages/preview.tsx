import { useRef, useState } from 'preact/hooks';
import { api, asApiError, type ApiError, type Preview } from '../api';
import { diffTool, flatten } from '../diff';
import { draftStore } from '../draft';
import { notifyChanged } from '../events';
import { HINTS } from '../hints';
import { linkTo, navigate, useSearch } from '../router';
import { Badge, Empty, ErrorBox, Spinner, splitError, useFocusOnError, useLoad } from '../ui';
import { Allowed } from '../role';
import { ClientCards, DraftChanges, pretty } from '../preview-cards';
import { GuardrailsLine, useAppliedGuardrails } from '../guardrails-preview';
import { DiscoveryNotice } from '../discovery-notice';
import { McpAppsNotice } from '../mcp-apps-notice';

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
/** Built-ins first, in the order people compare them; custom surfaces after. */
const SURFACE_ORDER = ['generic', 'claude', 'openai'];

interface PreviewData {
  shown: Preview;
  /** In draft mode: the live preview, to mark what the draft changes. */
  live?: Preview;
}

/** Exactly the `tools/list` each surface receives, side by side, with the differences highlighted — live, or for a draft before it is published. */
export function PreviewPage() {
  const search = useSearch();
  const draft = new URLSearchParams(search).has('draft') ? draftStore.get() : undefined;
  const missingDraft = new URLSearchParams(search).has('draft') && !draft;
  const [version, setVersion] = useState(VERSIONS[0]);
  const [onlyDiffs, setOnlyDiffs] = useState(false);
  const [publishing, setPublishing] = useState(false);
  const [publishError, setPublishError] = useState<ApiError | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const barRef = useRef<HTMLDivElement>(null);
  useFocusOnError(barRef, publishError);
  const preview = useLoad<PreviewData>(async () => {
    const q = `/v1/preview?version=${encodeURIComponent(version)}`;
    if (!draft) return { shown: await api<Preview>('GET', q) };
    const [shown, live] = await Promise.all([api<Preview>('POST', q, draft), api<Preview>('GET', q)]);
    return { shown, live };
  }, [version, search]);
  const { fields, form } = splitError(preview.error, { version: 'pv-version' });
  const data = preview.data?.shown;
  const live = preview.data?.live;
  const surfaces = data
    ? [...SURFACE_ORDER.filter((s) => s in data.surfaces), ...Object.keys(data.surfaces).filter((s) => !SURFACE_ORDER.includes(s))]
    : [];
  const applied = useAppliedGuardrails();
  const toolNames = data ? [...new Set(surfaces.flatMap((s) => data.surfaces[s].tools.map((t) => String(t.name))))] : [];

  const publish = async () => {
    if (!draft) return;
    setPublishing(true);
    setPublishError(undefined);
    try {
      const res = await api<{ version: string; items: Array<{ exposedName: string }> }>('POST', '/v1/publications', draft);
      draftStore.clear();
      notifyChanged();
      setNotice(`Published ${res.items.map((i) => i.exposedName).join(', ')}: the gateway now serves version ${res.version.slice(0, 12)}.`);
      navigate('preview');
    } catch (err) {
      setPublishError(asApiError(err));
    } finally {
      setPublishing(false);
    }
  };
  const discard = () => {
    draftStore.clear();
    setNotice('');
    navigate('tools');
  };

  if (missingDraft) {
    return (
      <section aria-labelledby="preview-h">
        <h1 id="preview-h">Preview</h1>
        <Empty>
          There is no draft to preview in this tab. <a {...linkTo('tools')}>Change a tool</a> and choose “Preview before publishing”, or{' '}
          <a {...linkTo('preview')}>see what is live</a>.
        </Empty>
      </section>
    );
  }

  return (
    <section aria-labelledby="preview-h">
      <h1 id="preview-h">{draft ? 'Preview — draft' : 'Preview'}</h1>
      <p class="lead">
        {draft ? (
          <>
            What each client <em>would</em> receive from <code>tools/list</code> if you published your change now, compiled by the same code
            as publishing. Nothing is live until you publish.
          </>
        ) : (
          <>
            What each client receives from <code>tools/list</code> for your published tools, compiled by the same code the gateway runs.
          </>
        )}{' '}
        Highlighted rows differ between surfaces; “—” means the surface does not receive that field.
      </p>
      {notice && !draft && (
        <p role="status" class="ok-text" data-testid="preview-notice">
          {notice}
        </p>
      )}
      {draft && (
        <div class="card draft-bar" data-testid="draft-bar" ref={barRef}>
          <p>
            <Badge tone="warn">Draft — not live yet</Badge>{' '}
            {draft.items.map((i) => (
              <span key={i.name} class="mono small">
                {draft.serverId}/{i.name}
                {i.exposedName ? ` → ${i.exposedName}` : ''}
                {i.overrides.title ? ` · title “${i.overrides.title}”` : ''}
                {i.overrides.description ? ' · new description' : ''}
                {i.overrides.annotations?.title ? ` · annotations.title “${i.overrides.annotations.title}”` : ''}
                {HINTS.filter((h) => typeof i.overrides.annotations?.[h.key] === 'boolean').map(
                  (h) => ` · ${h.key}=${String(i.overrides.annotations?.[h.key])}`,
                )}{' '}
              </span>
            ))}
          </p>
          {data?.live && <p class="muted small">This draft changes nothing: the gateway already serves exactly this.</p>}
          {publishError && <ErrorBox error={publishError} title="Could not publish" />}
          {publishError && publishError.field?.startsWith('body.items.') && (
            <p>
              <a {...linkTo('tools')}>Back to the Tools page</a> to fix it: the message names the field.
            </p>
          )}
          <div class="row">
            <Allowed needed="publisher" what="publishing">
              <button type="button" class="primary" onClick={() => void publish()} disabled={publishing || !data}>
                {publishing ? 'Publishing…' : 'Publish'}
              </button>
            </Allowed>
            <button type="button" onClick={discard} disabled={publishing}>
              Discard draft
            </button>
          </div>
        </div>
      )}
      {draft && data && live && <DraftChanges draft={data} live={live} />}
      <div class="row controls">
        <div class={`field inline${fields['pv-version'] ? ' invalid' : ''}`}>
          <label for="pv-version">Protocol version</label>
          <select id="pv-version" value={version} onChange={(e) => setVersion((e.currentTarget as HTMLSelectElement).value)}>
            {VERSIONS.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
          {fields['pv-version'] && <p class="field-error">{fields['pv-version']}</p>}
        </div>
        <label class="check">
          <input type="checkbox" checked={onlyDiffs} onChange={(e) => setOnlyDiffs((e.currentTarget as HTMLInputElement).checked)} /> Only
          show fields that differ between clients
        </label>
        {data &&
          !draft &&
          (data.live ? (
            <Badge tone="ok">Live: the gateway serves exactly this</Badge>
          ) : (
            <Badge tone="warn">Not yet live: publish to serve it</Badge>
          ))}
      </div>
      {data && !draft && <DiscoveryNotice version={version} />}
      {data && <McpAppsNotice apps={data.mcpApps} />}
      {data && (
        <section class="card" aria-labelledby="pv-dynamic-h" data-testid="preview-dynamic-resources">
          <h2 id="pv-dynamic-h">Dynamic resources</h2>
          {(data.dynamicResources ?? []).length === 0 ? (
            <p class="muted small">
              Off: only published resources and templates can be read. A server's links to other URIs (session resources) answer “not found”
              until its dynamic resources are published.
            </p>
          ) : (
            <ul>
              {(data.dynamicResources ?? []).map((d) => (
                <li key={d.uriPrefix} class="mono small">
                  {d.uriPrefix}… → {d.serverId}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {form && (
        <ErrorBox
          error={form}
          title={draft ? 'Could not build the draft preview' : 'Could not build the preview'}
          retry={() => void preview.reload()}
        />
      )}
      {preview.loading && !data && <Spinner label="Compiling the preview…" />}
      {data && toolNames.length === 0 && (
        <Empty>
          Nothing is published yet, so every surface receives an empty list. <a {...linkTo('tools')}>Publish tools</a> to preview them.
        </Empty>
      )}
      {data && toolNames.length > 0 && (
        <>
          <p class="muted small">
            {surfaces.map((s) => `${data.surfaces[s].profile.label}: ${data.surfaces[s].tools.length} tool(s)`).join(' · ')}
          </p>
          {toolNames.map((name) => {
            const rows = diffTool(surfaces.map((s) => data.surfaces[s].tools.find((t) => t.name === name)));
            const shown = onlyDiffs ? rows.filter((r) => r.differs) : rows;
            const liveFlat = live ? surfaces.map((s) => live.surfaces[s]?.tools.find((t) => t.name === name)) : [];
            const isNew = live !== undefined && liveFlat.every((t) => t === undefined);
            const liveValues = liveFlat.map((t) => (t ? flatten(t) : undefined));
            const changedRow = (path: string, values: Array<string | undefined>) =>
              live !== undefined && !isNew && values.some((v, i) => v !== liveValues[i]?.get(path));
            const toolChanged = live !== undefined && !isNew && rows.some((r) => changedRow(r.path, r.values));
            return (
              <section class="card" key={name} aria-label={`Tool ${name}`} data-testid={`preview-${name}`}>
                <h2 class="mono">
                  {name} {isNew && <Badge tone="info">New in this draft</Badge>}
                  {toolChanged && <Badge tone="info">Changed by this draft</Badge>}
                </h2>
                <ClientCards data={data} name={name} />
                <GuardrailsLine name={name} applied={applied(name)} />
                <details open={onlyDiffs || toolChanged || isNew}>
                  <summary>Every field, client by client</summary>
                  <div class="scroll-x">
                    <table class="data diff">
                      <thead>
                        <tr>
                          <th scope="col">Field</th>
                          {surfaces.map((s) => (
                            <th scope="col" key={s}>
                              {data.surfaces[s].profile.label} <span class="muted small">({s})</span>
                            </th>
                          ))}
                        </tr>
                      </thead>
                      <tbody>
                        {shown.length === 0 && (
                          <tr>
                            <td colSpan={surfaces.length + 1} class="muted">
                              Identical on every surface.
                            </td>
                          </tr>
                        )}
                        {shown.map((r) => (
                          <tr
                            key={r.path}
                            class={`${r.differs ? 'differs' : ''}${changedRow(r.path, r.values) ? ' changed' : ''}`}
                            data-path={r.path}
                          >
                            <th scope="row" class="mono">
                              {r.path}
                              {r.differs && <span class="sr-only"> (differs)</span>}
                              {changedRow(r.path, r.values) && <span class="changed-mark"> changed</span>}
                            </th>
                            {r.values.map((v, i) => (
                              <td
                                key={surfaces[i]}
                                class={`mono wrap${v === undefined ? ' absent' : ''}`}
                                data-tool={name}
                                data-path={r.path}
                                data-surface={surfaces[i]}
                              >
                                {v === undefined ? '—' : /Schema$/.test(r.path) ? <pre class="schema">{pretty(r.path, v)}</pre> : v}
                              </td>
                            ))}
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </details>
                <details>
                  <summary>Raw JSON per surface</summary>
                  <div class="raw">
                    {surfaces.map((s) => (
                      <div key={s}>
                        <h3>{s}</h3>
                        <pre>{JSON.stringify(data.surfaces[s].tools.find((t) => t.name === name) ?? null, null, 2)}</pre>
                      </div>
                    ))}
                  </div>
                </details>
              </section>
            );
          })}
        </>
      )}
    </section>
  );
}
