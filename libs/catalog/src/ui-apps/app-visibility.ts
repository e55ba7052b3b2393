import { isUiUri, type SurfaceProfile } from '@switchboard/protocol';
import type { ResourceEntry, ResourceTemplateEntry } from '../definitions';

/**
 * The resources a surface lists: all of them on an MCP Apps surface, otherwise those that are not
 * `ui://` (a client that did not declare the extension never sees UI resources). The same array
 * when nothing is left out; runs when a page is compiled, never per request.
 */
export function listedResources(entries: ResourceEntry[], surface: SurfaceProfile): ResourceEntry[] {
  if (surface.mcpApps === true || !entries.some((e) => isUiUri(e.definition.uri))) return entries;
  return entries.filter((e) => !isUiUri(e.definition.uri));
}

/** The resource templates a surface lists, by the same rule on `uriTemplate`. */
export function listedResourceTemplates(entries: ResourceTemplateEntry[], surface: SurfaceProfile): ResourceTemplateEntry[] {
  if (surface.mcpApps === true || !entries.some((e) => isUiUri(e.definition.uriTemplate))) return entries;
  return entries.filter((e) => !isUiUri(e.definition.uriTemplate));
}
