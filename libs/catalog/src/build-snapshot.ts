import type { CatalogSnapshot, DynamicResourceEntry, PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './definitions';
import { hashSnapshot } from './hash-snapshot';
import { namespaceAppUris } from './ui-apps/namespace-app-uris';

/**
 * The `serverInfo.version` every tenant snapshot announces. One value for every source (the
 * registry's, so published tenants keep what their clients already saw); the catalog's own
 * content version is the snapshot hash, not this.
 */
export const SNAPSHOT_SERVER_VERSION = '1.0.0';

/** The tenant fields a snapshot's server identity and instructions come from. */
export interface SnapshotTenant {
  id: string;
  name: string;
  description?: string | null;
  instructions?: string | null;
}

/** Entries contributed by one catalog (a bundle, a fixture file, an upstream, a set of publications). */
export interface SnapshotPart {
  tools?: readonly ToolEntry[];
  resources?: readonly ResourceEntry[];
  resourceTemplates?: readonly ResourceTemplateEntry[];
  prompts?: readonly PromptEntry[];
  dynamicResources?: readonly DynamicResourceEntry[];
}

export type SnapshotEntryKind = 'tool' | 'resource' | 'resourceTemplate' | 'prompt';

export interface BuildSnapshotOptions {
  /**
   * Keep the first of entries sharing a name (or URI) and report each later one here. Without it
   * every entry is kept, and a duplicate is left for `CompiledCatalog.build` to refuse.
   */
  onDuplicate?: (kind: SnapshotEntryKind, key: string) => void;
}

/**
 * The one way a tenant's immutable snapshot is assembled (the gateway's file source and the
 * registry's publisher): the parts' entries in order, the tenant's server identity, and the
 * content hash as `version`. Empty description and instructions are left out, so they never
 * change the hash. Upstream servers' `ui://` resources are namespaced per server (MCP Apps:
 * two servers never collide; docs/mcp-apps.md).
 */
export function buildCatalogSnapshot(
  tenant: SnapshotTenant,
  given: readonly SnapshotPart[],
  options: BuildSnapshotOptions = {},
): CatalogSnapshot {
  const parts = given.map(namespaceAppUris);
  const keep = <T>(kind: SnapshotEntryKind, items: T[], key: (item: T) => string): T[] => {
    const report = options.onDuplicate;
    if (!report) return items;
    const seen = new Set<string>();
    return items.filter((item) => {
      const k = key(item);
      if (seen.has(k)) {
        report(kind, k);
        return false;
      }
      seen.add(k);
      return true;
    });
  };
  const content: Omit<CatalogSnapshot, 'version'> = {
    tenantId: tenant.id,
    server: {
      name: `switchboard-${tenant.id}`,
      version: SNAPSHOT_SERVER_VERSION,
      title: tenant.name,
      ...(tenant.description ? { description: tenant.description } : {}),
    },
    ...(tenant.instructions ? { instructions: tenant.instructions } : {}),
    tools: keep(
      'tool',
      parts.flatMap((p) => p.tools ?? []),
      (t) => t.definition.name,
    ),
    resources: keep(
      'resource',
      parts.flatMap((p) => p.resources ?? []),
      (r) => r.definition.uri,
    ),
    resourceTemplates: keep(
      'resourceTemplate',
      parts.flatMap((p) => p.resourceTemplates ?? []),
      (r) => r.definition.uriTemplate,
    ),
    prompts: keep(
      'prompt',
      parts.flatMap((p) => p.prompts ?? []),
      (p) => p.definition.name,
    ),
  };
  const dynamicResources = parts.flatMap((p) => p.dynamicResources ?? []);
  if (dynamicResources.length > 0) content.dynamicResources = dynamicResources;
  return { ...content, version: hashSnapshot(content) };
}
