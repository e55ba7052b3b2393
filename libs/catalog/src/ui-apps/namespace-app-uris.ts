import { isUiUri, UI_SCHEME } from '@switchboard/protocol';
import type { ResourceEntry, Route, SnapshotPartEntries, ToolEntry } from './ui-app-types';

/** Tool `_meta` keys that hold a `ui://` URI: MCP Apps' flat legacy key and ChatGPT's widget template. */
const FLAT_URI_KEYS = ['ui/resourceUri', 'openai/outputTemplate'] as const;

/**
 * The `ui://` URI a tenant publishes for an upstream server's UI resource: the server id
 * (percent-encoded, so distinct ids stay distinct) becomes the authority and the server's own URI
 * the path, `ui://<server>/<host>/<path>`. Two servers publishing `ui://widget/card.html` get
 * `ui://a/widget/card.html` and `ui://b/widget/card.html`; the read goes back to the server under
 * its own URI (the route's `upstreamName`).
 */
export function namespacedUiUri(serverId: string, uri: string): string {
  return `${UI_SCHEME}${encodeURIComponent(serverId)}/${uri.slice(UI_SCHEME.length)}`;
}

/**
 * Namespaces the `ui://` resources of upstream servers and rewrites their tools' `_meta`
 * references to match (`ui.resourceUri`, `ui/resourceUri`, `openai/outputTemplate`). Local
 * (bundle) entries and entries without UI URIs are returned as the same objects, so catalogs
 * built from one bundle still share them. Runs once per snapshot build, never per request.
 */
export function namespaceAppUris<P extends SnapshotPartEntries>(part: P): P {
  const tools = part.tools?.some(hasUpstreamUiMeta) ? part.tools.map(namespaceTool) : part.tools;
  const resources = part.resources?.some(isUpstreamUi) ? part.resources.map(namespaceResource) : part.resources;
  if (tools === part.tools && resources === part.resources) return part;
  return { ...part, ...(tools ? { tools } : {}), ...(resources ? { resources } : {}) } as P;
}

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

function isUpstreamUi(entry: ResourceEntry): boolean {
  return entry.route.kind === 'upstream' && isUiUri(entry.definition.uri);
}

function namespaceResource(entry: ResourceEntry): ResourceEntry {
  if (!isUpstreamUi(entry)) return entry;
  const route = entry.route as UpstreamRoute;
  const original = entry.definition.uri;
  return {
    definition: { ...entry.definition, uri: namespacedUiUri(route.serverId, original) },
    // The server is read under its own URI; both sources already set it, this makes it certain.
    route: { ...route, upstreamName: original },
  };
}

function hasUpstreamUiMeta(entry: ToolEntry): boolean {
  const meta = entry.definition._meta;
  if (entry.route.kind !== 'upstream' || meta === undefined) return false;
  return uiOf(meta) !== undefined || FLAT_URI_KEYS.some((k) => isUiString(meta[k]));
}

function namespaceTool(entry: ToolEntry): ToolEntry {
  if (!hasUpstreamUiMeta(entry)) return entry;
  const serverId = (entry.route as UpstreamRoute).serverId;
  const meta: Record<string, unknown> = { ...entry.definition._meta };
  const ui = uiOf(meta);
  if (ui !== undefined) meta.ui = { ...ui, resourceUri: namespacedUiUri(serverId, ui.resourceUri as string) };
  for (const key of FLAT_URI_KEYS) {
    const value = meta[key];
    if (isUiString(value)) meta[key] = namespacedUiUri(serverId, value);
  }
  return { ...entry, definition: { ...entry.definition, _meta: meta } };
}

/** `_meta.ui` when it names a `ui://` resource. */
function uiOf(meta: Record<string, unknown>): Record<string, unknown> | undefined {
  const ui = meta.ui;
  if (typeof ui !== 'object' || ui === null || Array.isArray(ui)) return undefined;
  return isUiString((ui as Record<string, unknown>).resourceUri) ? (ui as Record<string, unknown>) : undefined;
}

function isUiString(value: unknown): value is string {
  return typeof value === 'string' && isUiUri(value);
}
