import type { SurfaceProfile } from './surface-profile';

// MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`): a tool names a `ui://` resource in
// `_meta.ui.resourceUri` and a host that declared the extension renders its result in it.
// docs/mcp-apps.md says what is published to whom and cites the specification.

/** The extension's identifier under `capabilities.extensions` (SEP-1865, ext-apps 2026-01-26). */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP App's HTML resource; a declaring client lists it in `mimeTypes`. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The URI scheme of UI resources. */
export const UI_SCHEME = 'ui://';
/** The `_meta` keys an MCP Apps surface keeps besides its own: `ui` and the deprecated flat `ui/resourceUri`. */
export const MCP_APPS_META_KEYS: readonly string[] = Object.freeze(['ui', 'ui/']);
/** Suffix of the surface variant served to a client that declared the extension (never a valid tenant surface id). */
export const APPS_SURFACE_SUFFIX = '+apps';

/**
 * Whether client capabilities (a 2026-07-28 request's `_meta`, or a legacy session's `initialize`)
 * declare MCP Apps: `extensions["io.modelcontextprotocol/ui"]` is an object and, when it lists
 * `mimeTypes`, that list includes `text/html;profile=mcp-app` (the only UI type served).
 * Reads a few properties and allocates nothing, so clients that declare nothing pay nothing.
 */
export function declaresMcpApps(capabilities: Record<string, unknown> | undefined): boolean {
  const extensions = capabilities?.extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const value = (extensions as Record<string, unknown>)[MCP_APPS_EXTENSION];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const mimeTypes = (value as Record<string, unknown>).mimeTypes;
  return !Array.isArray(mimeTypes) || mimeTypes.includes(MCP_APP_MIME_TYPE);
}

/** Whether a URI names a UI resource (`ui://…`, case-insensitive scheme). */
export function isUiUri(uri: string): boolean {
  return UI_URI.test(uri);
}

const UI_URI = /^ui:\/\/./i;

/** The id of a surface's MCP Apps variant (what a client of `surfaceId` that declared the extension is served). */
export function appsSurfaceId(surfaceId: string): string {
  return surfaceId + APPS_SURFACE_SUFFIX;
}

/**
 * A surface as a client that declared MCP Apps receives it: `ui://` resources listed and the
 * `ui` meta keys kept. A surface that already publishes apps is returned as it is (the same
 * object, so both ids share one compiled page).
 */
export function withMcpApps(profile: SurfaceProfile): SurfaceProfile {
  if (profile.mcpApps === true) return profile;
  let variant = VARIANTS.get(profile);
  if (!variant) {
    variant = appsVariant(profile);
    VARIANTS.set(profile, variant);
  }
  return variant;
}

/** One variant object per profile object: compiled tools pages are shared by profile identity. */
const VARIANTS = new WeakMap<SurfaceProfile, SurfaceProfile>();

function appsVariant(profile: SurfaceProfile): SurfaceProfile {
  const keep = profile.keepMetaKeys.includes('*')
    ? profile.keepMetaKeys
    : [...profile.keepMetaKeys, ...MCP_APPS_META_KEYS.filter((k) => !profile.keepMetaKeys.includes(k))];
  return Object.freeze({
    ...profile,
    id: appsSurfaceId(profile.id),
    label: `${profile.label} + MCP Apps`,
    mcpApps: true,
    keepMetaKeys: Object.freeze([...keep]) as string[],
  });
}

/** The surfaces plus each one's MCP Apps variant under `<id>+apps` (built once per surfaces object by the caller). */
export function withAppsVariants(surfaces: Readonly<Record<string, SurfaceProfile>>): Record<string, SurfaceProfile> {
  const out: Record<string, SurfaceProfile> = { ...surfaces };
  for (const id of Object.keys(surfaces)) {
    if (!id.endsWith(APPS_SURFACE_SUFFIX)) out[appsSurfaceId(id)] = withMcpApps(surfaces[id] as SurfaceProfile);
  }
  return out;
}
