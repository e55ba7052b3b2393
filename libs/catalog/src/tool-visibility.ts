import type { SurfaceProfile } from '@switchboard/protocol';
import type { ToolEntry } from './definitions';

/**
 * The rules that decide whether a compiled catalog lists a tool, each a named function. The
 * list compiler (list-page.ts, publish-tool.ts, discovery/tool-discovery.ts) filters with them,
 * and the registry's Explain API reports them, so the two cannot disagree. They run when a list
 * is compiled (a page-cache miss), never per request, and return a constant (no allocation).
 */
export type ListVerdict = 'pass' | 'hide';

/** MCP 2025-11-25 tool name rule (also enforced by the conformance `tools-name-format` check). */
const NAME_CHARSET = /^[A-Za-z0-9_.-]+$/;

/** Rule `name-charset`: a name outside `[A-Za-z0-9_.-]` is published on no surface. */
export function nameCharsetRule(name: string): ListVerdict {
  return NAME_CHARSET.test(name) ? 'pass' : 'hide';
}

/** Rule `name-length`: a name longer than the surface's `maxNameLength` is not published there. */
export function nameLengthRule(name: string, surface: SurfaceProfile): ListVerdict {
  return name.length <= surface.maxNameLength ? 'pass' : 'hide';
}

/** Rule `retired`: an unlisted entry (a renamed or removed tool in its grace period) is callable but never listed. */
export function retiredRule(entry: ToolEntry): ListVerdict {
  return entry.unlisted === true ? 'hide' : 'pass';
}

/** Rule `max-tools`: once a surface lists `maxTools` tools (catalog order), the rest are left out; `0` = no cap. */
export function maxToolsRule(listedBefore: number, surface: SurfaceProfile): ListVerdict {
  return surface.maxTools > 0 && listedBefore >= surface.maxTools ? 'hide' : 'pass';
}

/**
 * Rule `discovery`: in discovery mode a surface's `tools/list` is the meta-tools and the pinned
 * tools; any other tool is found through `search_tools` and stays callable by name.
 */
export function discoveryRule(active: boolean, pinned: ReadonlySet<string>, name: string): ListVerdict {
  return !active || pinned.has(name) ? 'pass' : 'hide';
}
