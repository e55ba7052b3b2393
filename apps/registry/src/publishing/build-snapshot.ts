import {
  buildCatalogSnapshot,
  CompiledCatalog,
  type CatalogSnapshot,
  type DynamicResourceEntry,
  type PromptEntry,
  type ResourceEntry,
  type ResourceTemplateEntry,
  type Route,
  type ToolDefinition,
  withUpstreamTaskSupport,
  type ToolEntry,
} from '@switchboard/catalog';
import { surfaceProfiles } from '@switchboard/protocol';
import type { Queryable } from '../db/database';
import { ApiError } from '../http/api-error';
import type { ToolOverrides } from '../http/schemas';
import type { ServerRow } from '../model/server-row';
import type { TenantRow } from '../model/tenant-row';
import { effectiveAnnotations } from './tool-hints';

export interface PublicationRow {
  server_id: string;
  kind: 'tool' | 'resource' | 'resource_template' | 'prompt';
  key: string;
  exposed_name: string;
  approved_hash: string;
  approved_definition: Record<string, unknown>;
  overrides: ToolOverrides;
}

interface RetiredRow {
  exposed_name: string;
  server_id: string;
  entry: ToolEntry;
}

/**
 * Compiles the tenant's immutable snapshot from its publications (approved definitions with
 * overrides; exposed names from the routing table, never parsed back) plus retired names
 * still in their grace period as `unlisted` entries (callable, never in `tools/list`).
 * Checks it compiles for every surface the tenant serves.
 */
export async function buildSnapshot(q: Queryable, tenant: TenantRow): Promise<{ snapshot: CatalogSnapshot; serverIds: string[] }> {
  const servers = new Map(
    (await q.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1', [tenant.id])).map((s) => [s.id, s] as const),
  );
  const pubs = await q.query<PublicationRow>(
    'SELECT server_id, kind, key, exposed_name, approved_hash, approved_definition, overrides FROM registry.publications WHERE tenant_id = $1 ORDER BY kind, exposed_name',
    [tenant.id],
  );
  const retired = await q.query<RetiredRow>(
    'SELECT exposed_name, server_id, entry FROM registry.retired_names WHERE tenant_id = $1 AND expires_at > now() ORDER BY exposed_name',
    [tenant.id],
  );
  const tools: ToolEntry[] = [];
  const prompts: PromptEntry[] = [];
  const resources: ResourceEntry[] = [];
  const resourceTemplates: ResourceTemplateEntry[] = [];
  const used = new Set<string>();
  for (const p of pubs) {
    const server = servers.get(p.server_id);
    if (!server) continue;
    const route = routeOf(server, p.key);
    used.add(server.id);
    const def = p.approved_definition;
    if (p.kind === 'tool') {
      const o = p.overrides ?? {};
      // How it runs tasks comes from its `execution.taskSupport` only (the gateway proxies its tasks).
      const tool = withUpstreamTaskSupport({ ...def, name: p.exposed_name } as unknown as ToolDefinition);
      if (o.title !== undefined) tool.title = o.title;
      if (o.description !== undefined) tool.description = o.description;
      // The same merge the hint check at publish time judges (tool-hints.ts).
      if (o.annotations !== undefined) tool.annotations = effectiveAnnotations(def, o.annotations) as ToolDefinition['annotations'];
      tools.push({ definition: tool, route });
    } else if (p.kind === 'prompt') {
      prompts.push({ definition: { ...(def as object), name: p.exposed_name } as PromptEntry['definition'], route });
    } else if (p.kind === 'resource') {
      resources.push({ definition: def as unknown as ResourceEntry['definition'], route });
    } else {
      resourceTemplates.push({ definition: def as unknown as ResourceTemplateEntry['definition'], route });
    }
  }
  const live = new Set(tools.map((t) => t.definition.name));
  for (const r of retired) {
    const server = servers.get(r.server_id);
    if (!server || live.has(r.exposed_name)) continue;
    used.add(server.id);
    // Unlisted rather than listed as deprecated: clients that cached an older list (claude.ai
    // keeps them for hours) can still call the old name, while fresh lists show only the successor.
    // The route is rebuilt from the server so a changed URL or limit still applies.
    const route = routeOf(server, (r.entry.route as Extract<Route, { kind: 'upstream' }>).upstreamName);
    tools.push({ definition: r.entry.definition, route, unlisted: true });
  }
  // The "dynamic resources" setting: unlisted URIs under a server's prefixes are read from it.
  const dynamicResources: DynamicResourceEntry[] = [];
  for (const server of [...servers.values()].sort((a, b) => a.id.localeCompare(b.id))) {
    if (!server.dynamic_resources) continue;
    used.add(server.id);
    for (const uriPrefix of server.dynamic_resources.uriPrefixes) dynamicResources.push({ uriPrefix, route: routeOf(server, '') });
  }
  const snapshot = buildCatalogSnapshot(tenant, [{ tools, resources, resourceTemplates, prompts, dynamicResources }]);
  try {
    CompiledCatalog.build(snapshot, { surfaces: surfaceProfiles(tenant.surface_rules) });
  } catch (err) {
    throw new ApiError(409, 'CONFLICT', `the catalog does not compile: ${(err as Error).message}`, undefined, undefined, { cause: err });
  }
  return { snapshot, serverIds: [...used].sort() };
}

function routeOf(server: ServerRow, upstreamName: string): Route {
  return {
    kind: 'upstream',
    serverId: server.id,
    url: server.url,
    upstreamName,
    ...(server.stateful ? { stateful: true } : {}),
    ...(server.protocol_era === 'modern' ? { protocol: 'modern' as const } : {}),
    ...(server.transport_spoken === 'sse' ? { transport: 'sse' as const } : {}),
    ...(server.timeout_ms !== null ? { timeoutMs: server.timeout_ms } : {}),
    ...(server.max_concurrency !== null ? { maxConcurrency: server.max_concurrency } : {}),
  };
}
