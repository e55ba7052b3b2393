import {
  withUpstreamTaskSupport,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type ToolDefinition,
} from '@switchboard/catalog';
import { limitResponseBytes, ResponseTooLargeError } from '@switchboard/net-guard';
import {
  connectUpstream,
  discoveryCapabilities,
  listAll,
  probeCapabilityRequirements,
  type ConnectDeclaring,
  type ListAllOptions,
  type ProbedCapability,
  type UpstreamConnection,
} from '@switchboard/upstream-client';

export interface DiscoveredCatalog {
  tools: ToolDefinition[];
  resources: ResourceDefinition[];
  resourceTemplates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}

/** Default bound on one discovery response (a list page, or one SSE event), as UPSTREAM_RESPONSE_MAX_BYTES. */
export const DISCOVERY_PAGE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Lists everything an upstream MCP server offers, following every page, with the official
 * SDK client over Streamable HTTP. Used by the file source at boot (the registry's
 * discovery jobs do the same with persistence and review). Every response is counted while it
 * streams: a page past `maxPageBytes` stops discovery with an error naming the limit.
 */
export async function discoverUpstream(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  maxPageBytes = DISCOVERY_PAGE_MAX_BYTES,
): Promise<DiscoveredCatalog> {
  const abort = new AbortController();
  const limited = limitResponseBytes(
    (u, init) => fetch(u, init),
    () => ({ maxBytes: maxPageBytes, onExceeded: (err) => abort.abort(err) }),
  );
  try {
    // Declaring what the gateway relays finds the tools a server registers only for capable clients.
    const connect = (capabilities: Record<string, object>) =>
      connectUpstream({
        url,
        era: 'legacy',
        transport: 'streamable-http',
        headers,
        fetch: limited,
        timeoutMs,
        signal: abort.signal,
        clientInfo: { name: 'switchboard-gateway', version: '0.1.0' },
        capabilities,
      });
    const conn = await connect(discoveryCapabilities());
    try {
      const listed = await listAll(conn, { timeout: timeoutMs, signal: abort.signal });
      const required = await requirementsOf(connect, conn, listed.tools, { timeout: timeoutMs, signal: abort.signal });
      return {
        tools: (listed.tools as unknown as ToolDefinition[]).map(withUpstreamTaskSupport).map((t) => withRequirements(t, required)),
        resources: listed.resources as unknown as ResourceDefinition[],
        resourceTemplates: listed.resourceTemplates as unknown as ResourceTemplateDefinition[],
        prompts: listed.prompts as unknown as PromptDefinition[],
      };
    } finally {
      await conn.close().catch(() => undefined);
    }
  } catch (err) {
    const cause = abort.signal.aborted ? abort.signal.reason : err;
    if (cause instanceof ResponseTooLargeError) {
      throw new Error(
        `upstream ${url} sent a discovery response larger than ${maxPageBytes} bytes (limit UPSTREAM_RESPONSE_MAX_BYTES = ${maxPageBytes}); serve the lists in smaller pages`,
        { cause },
      );
    }
    throw err;
  }
}

/** The capabilities each gated tool needs (probeCapabilityRequirements); none when a probe fails, unless the byte bound stopped discovery. */
async function requirementsOf(
  connect: ConnectDeclaring,
  conn: UpstreamConnection,
  tools: Array<Record<string, unknown>>,
  opts: ListAllOptions,
): Promise<Map<string, ProbedCapability[]>> {
  if (!conn.capabilities.tools) return new Map();
  try {
    return await probeCapabilityRequirements(
      connect,
      tools.map((t) => String(t.name)),
      opts,
    );
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return new Map();
  }
}

/** `requiredClientCapabilities` is discovery's own finding, never the upstream's claim. */
function withRequirements(tool: ToolDefinition, required: ReadonlyMap<string, ProbedCapability[]>): ToolDefinition {
  const { requiredClientCapabilities: _theirs, ...own } = tool;
  void _theirs;
  const needs = required.get(tool.name);
  return needs ? { ...own, requiredClientCapabilities: needs } : own;
}
