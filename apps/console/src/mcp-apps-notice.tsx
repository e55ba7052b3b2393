import type { Preview } from './api';
import { Badge } from './ui';

type McpApps = NonNullable<Preview['mcpApps']>;

/**
 * MCP Apps on the preview: which published tools render in a UI view, the `ui://` views (as
 * clients see them, and the server and URI a read goes to), and which clients of each surface
 * receive them. Absent when the tenant publishes no app, so other previews stay as they were.
 */
export function McpAppsNotice({ apps }: { apps: McpApps | undefined }) {
  if (!apps) return null;
  return (
    <section class="card" aria-labelledby="pv-apps-h" data-testid="preview-mcp-apps">
      <h2 id="pv-apps-h">MCP Apps</h2>
      <p class="muted small">
        Clients that declare the <code>{apps.extension}</code> extension receive each tool's <code>_meta.ui</code> and the{' '}
        <code>ui://</code> views below; other clients never see them. Each server's views are published under its own{' '}
        <code>ui://&lt;server&gt;/…</code> URI.
      </p>
      <ul>
        {apps.surfaces.map((s) => (
          <li key={s.id} data-testid={`apps-surface-${s.id}`}>
            <Badge tone={s.audience === 'every-client' ? 'ok' : 'info'}>{s.label}</Badge>{' '}
            {s.audience === 'every-client' ? 'every client gets the UI' : 'gets the UI only when the client declares the extension'}
          </li>
        ))}
      </ul>
      {apps.tools.length > 0 && (
        <p class="small" data-testid="apps-tools">
          Tools with a view:{' '}
          {apps.tools.map((t, i) => (
            <span key={t.name} class="mono">
              {i > 0 ? ', ' : ''}
              {t.name} → {t.resourceUri}
            </span>
          ))}
        </p>
      )}
      {apps.resources.length > 0 && (
        <ul data-testid="apps-resources">
          {apps.resources.map((r) => (
            <li key={r.uri} class="mono small">
              {r.uri}
              {r.serverId !== null ? ` ← ${r.serverId} ${r.upstreamUri ?? ''}` : ''}
              {r.mimeType !== null ? ` (${r.mimeType})` : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
