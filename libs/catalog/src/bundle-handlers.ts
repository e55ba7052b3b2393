import { localHandlerKey, type LocalBundle } from './local-bundle';
import type { PromptClass } from './prompt';
import type { ResourceClass, ResourceTemplateClass } from './resource';
import type { ToolClass } from './tool';

/** The implementations behind `{ kind: 'local' }` routes, keyed by their route's `handler`. */
export interface BundleHandlers {
  tools: Map<string, ToolClass>;
  resources: Map<string, ResourceClass>;
  resourceTemplates: Map<string, ResourceTemplateClass>;
  prompts: Map<string, PromptClass>;
}

/**
 * Indexes the classes of one or more bundles by handler key (the same keys `snapshotFromBundle`
 * writes into routes), so a transport resolves a local route with one map lookup.
 */
export function bundleHandlers(...bundles: LocalBundle[]): BundleHandlers {
  const out: BundleHandlers = { tools: new Map(), resources: new Map(), resourceTemplates: new Map(), prompts: new Map() };
  for (const b of bundles) {
    for (const t of b.tools) out.tools.set(localHandlerKey(b.id, t.definition.name), t);
    for (const r of b.resources ?? []) out.resources.set(localHandlerKey(b.id, r.definition.uri), r);
    for (const r of b.resourceTemplates ?? []) out.resourceTemplates.set(localHandlerKey(b.id, r.definition.uriTemplate), r);
    for (const p of b.prompts ?? []) out.prompts.set(localHandlerKey(b.id, p.definition.name), p);
  }
  return out;
}
