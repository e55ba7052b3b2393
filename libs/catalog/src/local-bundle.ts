import type { PromptClass } from './prompt';
import type { ResourceClass, ResourceTemplateClass } from './resource';
import type { ServerIdentity, CatalogSnapshot } from './definitions';
import { hashSnapshot } from './hash-snapshot';
import type { ToolClass } from './tool';

/** A set of in-process implementations: a built-in catalog (demo, conformance, chain). */
export interface LocalBundle {
  /** Stable id; routes point at `${id}:${name}` handler keys. */
  id: string;
  server: ServerIdentity;
  instructions?: string;
  tools: ToolClass[];
  resources?: ResourceClass[];
  resourceTemplates?: ResourceTemplateClass[];
  prompts?: PromptClass[];
}

/** Handler key of a local entry: `${bundleId}:${name or uri}` (a resource template uses its `uriTemplate`). */
export function localHandlerKey(bundleId: string, name: string): string {
  return `${bundleId}:${name}`;
}

type BundleEntries = Pick<CatalogSnapshot, 'tools' | 'resources' | 'resourceTemplates' | 'prompts'>;

/** A bundle's entries, built and deep-frozen once: every tenant's snapshot of the bundle shares them. */
const entriesByBundle = new WeakMap<LocalBundle, { source: LocalBundle['tools']; entries: BundleEntries }>();

/**
 * A snapshot whose entries all route to the bundle's local handlers; `version` is its content hash.
 * The entries are the bundle's, shared and frozen (a bundle is static): a tenant's snapshot
 * costs its lists, not copies of the definitions, and its hash reuses the entries' digests.
 */
export function snapshotFromBundle(tenantId: string, bundle: LocalBundle): CatalogSnapshot {
  const entries = bundleEntries(bundle);
  const content: Omit<CatalogSnapshot, 'version'> = {
    tenantId,
    server: bundle.server,
    ...(bundle.instructions === undefined ? {} : { instructions: bundle.instructions }),
    tools: entries.tools.slice(),
    resources: entries.resources.slice(),
    resourceTemplates: entries.resourceTemplates.slice(),
    prompts: entries.prompts.slice(),
  };
  return { ...content, version: hashSnapshot(content) };
}

function bundleEntries(bundle: LocalBundle): BundleEntries {
  const known = entriesByBundle.get(bundle);
  if (known && known.source === bundle.tools) return known.entries;
  const local = (key: string) => ({ kind: 'local' as const, handler: localHandlerKey(bundle.id, key) });
  const entries: BundleEntries = {
    tools: bundle.tools.map((t) => ({ definition: t.definition, route: local(t.definition.name) })),
    resources: (bundle.resources ?? []).map((r) => ({ definition: r.definition, route: local(r.definition.uri) })),
    resourceTemplates: (bundle.resourceTemplates ?? []).map((r) => ({ definition: r.definition, route: local(r.definition.uriTemplate) })),
    prompts: (bundle.prompts ?? []).map((p) => ({ definition: p.definition, route: local(p.definition.name) })),
  };
  // Frozen, the entries' canonical JSON and digests are computed once for all tenants' hashes.
  for (const list of Object.values(entries)) for (const entry of list) deepFreeze(entry);
  entriesByBundle.set(bundle, { source: bundle.tools, entries });
  return entries;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
}
