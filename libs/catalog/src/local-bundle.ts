import type { PromptClass } from './prompt';
import type { ResourceClass, ResourceTemplateClass } from './resource';
import type { ServerIdentity, CatalogSnapshot } from './definitions';
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

/** Handler key of a local entry: `${bundleId}:${name or uri}`. */
export function localHandlerKey(bundleId: string, name: string): string {
  return `${bundleId}:${name}`;
}

/** A snapshot whose entries all route to the bundle's local handlers. */
export function snapshotFromBundle(tenantId: string, bundle: LocalBundle): CatalogSnapshot {
  void tenantId; void bundle;
  throw new Error('not implemented');
}
