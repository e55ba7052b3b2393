import { useState } from 'preact/hooks';
import { api, type Preview } from '../api';
import { diffTool } from '../diff';
import { navigate } from '../router';
import { Badge, Empty, ErrorBox, Spinner, splitError, useLoad } from '../ui';

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
/** Built-ins first, in the order people compare them; custom surfaces after. */
const SURFACE_ORDER = ['generic', 'claude', 'openai'];

/** Exactly the `tools/list` each surface receives, side by side, with the differences highlighted. */
export function PreviewPage() {
  const [version, setVersion] = useState(VERSIONS[0]);
  const [onlyDiffs, setOnlyDiffs] = useState(false);
  const preview = useLoad(() => api<Preview>('GET', `/v1/preview?version=${encodeURIComponent(version)}`), [version]);
  const { fields, form } = splitError(preview.error, { version: 'pv-version' });
  const data = preview.data;
  const surfaces = data ? [...SURFACE_ORDER.filter((s) => s in data.surfaces), ...Object.keys(data.surfaces).filter((s) => !SURFACE_ORDER.includes(s))] : [];
  const toolNames = data ? [...new Set(surfaces.flatMap((s) => data.surfaces[s].tools.map((t) => String(t.name))))] : [];

  return (
    <section aria-labelledby="preview-h">
      <h1 id="preview-h">Preview</h1>
      <p class="lead">
        What each client receives from <code>tools/list</code> for your published tools, compiled by the same code the gateway runs. Highlighted rows differ between surfaces; “—” means the surface does not receive that field.
      </p>
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
          <input type="checkbox" checked={onlyDiffs} onChange={(e) => setOnlyDiffs((e.currentTarget as HTMLInputElement).checked)} /> Only show differences
        </label>
        {data && (data.live ? <Badge tone="ok">Live: the gateway serves exactly this</Badge> : <Badge tone="warn">Not yet live: publish to serve it</Badge>)}
      </div>
      {form && <ErrorBox error={form} title="Could not build the preview" retry={() => void preview.reload()} />}
      {preview.loading && !data && <Spinner label="Compiling the preview…" />}
      {data && toolNames.length === 0 && (
        <Empty>
          Nothing is published yet, so every surface receives an empty list.{' '}
          <a href="/console/tools" onClick={(e) => (e.preventDefault(), navigate('tools'))}>
            Publish tools
          </a>{' '}
          to preview them.
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
            return (
              <section class="card" key={name} aria-label={`Tool ${name}`} data-testid={`preview-${name}`}>
                <h2 class="mono">{name}</h2>
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
                        <tr key={r.path} class={r.differs ? 'differs' : ''} data-path={r.path}>
                          <th scope="row" class="mono">
                            {r.path}
                            {r.differs && <span class="sr-only"> (differs)</span>}
                          </th>
                          {r.values.map((v, i) => (
                            <td key={surfaces[i]} class={`mono wrap${v === undefined ? ' absent' : ''}`} data-tool={name} data-path={r.path} data-surface={surfaces[i]}>
                              {v === undefined ? '—' : v}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
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
