import { api } from './api';
import { Badge, useLoad } from './ui';

interface SurfaceDiscovery {
  mode: 'off' | 'on' | 'auto';
  threshold: number;
  pinned: string[];
  tools: number;
  active: boolean;
  listed: string[];
}

/**
 * Progressive discovery on the preview: which surfaces get the small first list (meta-tools and
 * pinned tools) instead of every tool, from GET /v1/discovery (the gateway's own code).
 */
export function DiscoveryNotice({ version }: { version: string }) {
  const load = useLoad(
    () => api<{ surfaces: Record<string, SurfaceDiscovery> }>('GET', `/v1/discovery?version=${encodeURIComponent(version)}`),
    [version],
  );
  // Shown only where discovery mode is on: other tenants' preview stays as it was.
  const active = Object.entries(load.data?.surfaces ?? {}).filter(([, s]) => s.active);
  if (active.length === 0) return null;
  return (
    <section class="card" aria-labelledby="pv-discovery-h" data-testid="preview-discovery">
      <h2 id="pv-discovery-h">Discovery mode</h2>
      <ul>
        {active.map(([id, s]) => (
          <li key={id} data-testid={`discovery-${id}`}>
            <Badge tone="info">{id}</Badge> first tools/list: <span class="mono small">{s.listed.join(', ')}</span>
            {s.pinned.length > 0 ? ` (pinned: ${s.pinned.join(', ')})` : ' (nothing pinned)'}; all {s.tools} published tools are found with
            search_tools and stay callable by name.
          </li>
        ))}
      </ul>
    </section>
  );
}
