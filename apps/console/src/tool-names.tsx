import type { ToolsData } from './tools-data';

const MAX = 64;

/** The registry's sanitizeName for names it can mirror (a name over 64 characters gets a hash suffix there: undefined here). */
function sanitized(name: string): string | undefined {
  const out = name.replace(/[^A-Za-z0-9_.-]/g, '_') || '_';
  return out.length > MAX ? undefined : out;
}

export const toolKey = (serverId: string, tool: string) => `${serverId}\u0000${tool}`;

/**
 * The name each tool is served under (published) or would get if it alone were published now, by
 * the registry's rule (apps/registry/src/publishing/exposed-name.ts): the upstream name, else
 * `<prefix>_<name>` when a published tool already has it. Unknown (absent) when the registry would
 * shorten it; the publish panel asks the registry itself (a draft preview) before publishing.
 */
export function predictNames(data: ToolsData): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const p of data.publications) {
    if (p.kind !== 'tool') continue;
    taken.add(p.exposedName);
    out.set(toolKey(p.serverId, p.upstreamName), p.exposedName);
  }
  for (const { server, tools } of data.servers) {
    for (const t of tools) {
      const key = toolKey(server.id, t.name);
      if (out.has(key) || t.removedAt) continue;
      const base = sanitized(t.name);
      if (base === undefined) continue;
      const name = !taken.has(base) ? base : sanitized(`${server.toolPrefix ?? server.id}_${t.name}`);
      if (name !== undefined && !taken.has(name)) out.set(key, name);
    }
  }
  return out;
}
