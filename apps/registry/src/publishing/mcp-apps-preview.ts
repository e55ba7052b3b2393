import type { CatalogSnapshot } from '@switchboard/catalog';
import { isUiUri, MCP_APPS_EXTENSION, surfaceProfiles, type TenantSurfaceRules } from '@switchboard/protocol';

/** Which clients of a surface get the MCP Apps UI: all of them, or those that declare the extension. */
export type AppsAudience = 'every-client' | 'declaring-clients';

/** The MCP Apps part of a preview: the tools that render in a UI, their views, and who gets them. */
export interface McpAppsPreview {
  extension: string;
  tools: { name: string; resourceUri: string }[];
  resources: { uri: string; serverId: string | null; upstreamUri: string | null; mimeType: string | null }[];
  surfaces: { id: string; label: string; audience: AppsAudience }[];
}

/**
 * What the console shows about MCP Apps (docs/mcp-apps.md): the published tools naming a `ui://`
 * view (as clients see the URI, namespaced per server), the UI resources with the server and
 * URI a read goes to, and per surface whether every client or only one declaring
 * `io.modelcontextprotocol/ui` gets them. Undefined when nothing of the tenant is an app.
 */
export function mcpAppsPreview(snapshot: CatalogSnapshot, rules: TenantSurfaceRules): McpAppsPreview | undefined {
  const tools: McpAppsPreview['tools'] = [];
  for (const { definition, unlisted } of snapshot.tools) {
    const ui = definition._meta?.ui as { resourceUri?: unknown } | undefined;
    if (unlisted !== true && typeof ui?.resourceUri === 'string' && isUiUri(ui.resourceUri))
      tools.push({ name: definition.name, resourceUri: ui.resourceUri });
  }
  const resources = snapshot.resources
    .filter((r) => isUiUri(r.definition.uri))
    .map(({ definition, route }) => ({
      uri: definition.uri,
      serverId: route.kind === 'upstream' ? route.serverId : null,
      upstreamUri: route.kind === 'upstream' ? route.upstreamName : null,
      mimeType: definition.mimeType ?? null,
    }));
  if (tools.length === 0 && resources.length === 0) return undefined;
  const surfaces = Object.values(surfaceProfiles(rules)).map((s) => ({
    id: s.id,
    label: s.label,
    audience: (s.mcpApps === true ? 'every-client' : 'declaring-clients') as AppsAudience,
  }));
  return { extension: MCP_APPS_EXTENSION, tools, resources, surfaces };
}
