import { attributeCapabilities } from './attribute-capabilities';
import { discoveryCapabilities, PROBED_CAPABILITIES, type ProbedCapability } from './discovery-capabilities';
import type { UpstreamConnection } from './upstream-connection';
import { listAll, type ListAllOptions } from './list-all';

/** Opens a session declaring `capabilities` (the era and transport already found). */
export type ConnectDeclaring = (capabilities: Record<string, object>) => Promise<UpstreamConnection>;

/**
 * Which tools of `tools` (listed by a session declaring {@link discoveryCapabilities}) the upstream
 * registers only for capable clients, and the capabilities each needs: one bare tools listing,
 * then — only when some tool is missing from it — one per capability left out (in parallel).
 * At most {@link PROBED_CAPABILITIES}.length + 1 sessions, each bounded by `opts`.
 */
export async function probeCapabilityRequirements(
  connect: ConnectDeclaring,
  tools: readonly string[],
  opts: ListAllOptions,
): Promise<Map<string, ProbedCapability[]>> {
  const names = async (capabilities: Record<string, object>): Promise<string[]> => {
    const conn = await connect(capabilities);
    try {
      const listed = await listAll({ capabilities: { tools: {} }, listPage: (m, c, o) => conn.listPage(m, c, o) }, opts);
      return listed.tools.map((t) => String(t.name));
    } finally {
      await conn.close().catch(() => undefined);
    }
  };
  const bare = await names({});
  if (tools.every((name) => bare.includes(name))) return new Map();
  const without = new Map(
    await Promise.all(PROBED_CAPABILITIES.map(async (cap) => [cap, await names(discoveryCapabilities(cap))] as const)),
  );
  return attributeCapabilities(tools, bare, without);
}
