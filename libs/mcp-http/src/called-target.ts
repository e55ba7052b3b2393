import type { CompiledCatalog, Route } from '@switchboard/catalog';
import type { JsonObject } from '@switchboard/protocol';

/**
 * What a tools/call, prompts/get or resources/read targets in the tenant's catalog, looked up
 * once per request for everything that keys on it (labels, limits, usage): the server id
 * (`local` for in-process routes, `-` for other methods or a name the catalog does not know)
 * and the tool / prompt name or the resource's URI (a template's `uriTemplate`), only when the
 * catalog knows it — an arbitrary client string never becomes a key or label.
 */
export interface CalledTarget {
  readonly serverId: string;
  readonly name: string | undefined;
}

/** Other methods, and names the catalog does not know. */
export const NOTHING_CALLED: CalledTarget = Object.freeze({ serverId: '-', name: undefined });

export function calledTarget(catalog: CompiledCatalog, method: string, params: JsonObject | undefined): CalledTarget {
  if (method === 'tools/call') {
    const name = params?.name;
    const tool = typeof name === 'string' ? catalog.tool(name) : undefined;
    return tool ? { serverId: serverOf(tool.entry.route), name: name as string } : NOTHING_CALLED;
  }
  if (method === 'prompts/get') {
    const name = params?.name;
    const prompt = typeof name === 'string' ? catalog.prompt(name) : undefined;
    return prompt ? { serverId: serverOf(prompt.route), name: name as string } : NOTHING_CALLED;
  }
  if (method === 'resources/read') {
    const uri = params?.uri;
    const found = typeof uri === 'string' ? catalog.resource(uri) : undefined;
    if (!found) {
      // A dynamic resource: keyed by its server and the published prefix (bounded), never the URI itself.
      const dynamic = typeof uri === 'string' ? catalog.dynamicResource(uri) : undefined;
      return dynamic ? { serverId: serverOf(dynamic.route), name: dynamic.uriPrefix } : NOTHING_CALLED;
    }
    return 'entry' in found
      ? { serverId: serverOf(found.entry.route), name: found.entry.definition.uri }
      : { serverId: serverOf(found.template.route), name: found.template.definition.uriTemplate };
  }
  return NOTHING_CALLED;
}

function serverOf(route: Route): string {
  return route.kind === 'upstream' ? route.serverId : 'local';
}
