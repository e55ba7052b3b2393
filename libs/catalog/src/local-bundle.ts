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

/** A snapshot whose entries all route to the bundle's local handlers; `version` is its content hash. */
export function snapshotFromBundle(tenantId: string, bundle: LocalBundle): CatalogSnapshot {
  const local = (key: string) => ({ kind: 'local' as const, handler: localHandlerKey(bundle.id, key) });
  // A bundle's definitions are static and shared by every tenant built from it; frozen, their
  // canonical JSON is computed once for all those tenants' snapshot hashes (see canonicalJson).
  for (const item of [...bundle.tools, ...(bundle.resources ?? []), ...(bundle.resourceTemplates ?? []), ...(bundle.prompts ?? [])]) {
    deepFreeze(item.definition);
  }
  const content: Omit<CatalogSnapshot, 'version'> = {
    tenantId,
    server: bundle.server,
    ...(bundle.instructions === undefined ? {} : { instructions: bundle.instructions }),
    tools: bundle.tools.map((t) => ({ definition: t.definition, route: local(t.definition.name) })),
    resources: (bundle.resources ?? []).map((r) => ({ definition: r.definition, route: local(r.definition.uri) })),
    resourceTemplates: (bundle.resourceTemplates ?? []).map((r) => ({
      definition: r.definition,
      route: local(r.definition.uriTemplate),
    })),
    prompts: (bundle.prompts ?? []).map((p) => ({ definition: p.definition, route: local(p.definition.name) })),
  };
  return { ...content, version: hashSnapshot(content) };
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
}
