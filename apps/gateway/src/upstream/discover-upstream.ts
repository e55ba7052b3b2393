import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from '@switchboard/catalog';
import { limitResponseBytes, ResponseTooLargeError, stripForbiddenHeaders } from '@switchboard/net-guard';

export interface DiscoveredCatalog {
  tools: ToolDefinition[];
  resources: ResourceDefinition[];
  resourceTemplates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}

const MAX_PAGES = 100;

/** Default bound on one discovery response (a list page, or one SSE event), as UPSTREAM_RESPONSE_MAX_BYTES. */
export const DISCOVERY_PAGE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Lists everything an upstream MCP server offers, following every page, with the official
 * SDK client over Streamable HTTP. Used by the file source at boot (the registry's
 * discovery jobs do the same with persistence and review). Every response is counted while it
 * streams: a page past `maxPageBytes` stops discovery with an error naming the limit.
 */
export async function discoverUpstream(url: string, headers: Record<string, string>, timeoutMs: number, maxPageBytes = DISCOVERY_PAGE_MAX_BYTES): Promise<DiscoveredCatalog> {
  const abort = new AbortController();
  const client = new Client({ name: 'switchboard-gateway', version: '0.1.0' });
  const limited = limitResponseBytes((u, init) => fetch(u, init), () => ({ maxBytes: maxPageBytes, onExceeded: (err) => abort.abort(err) }));
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: stripForbiddenHeaders(headers) }, fetch: limited });
  const opts = { timeout: timeoutMs, signal: abort.signal };
  try {
    return await listEverything(client, transport, opts);
  } catch (err) {
    const cause = abort.signal.aborted ? abort.signal.reason : err;
    if (cause instanceof ResponseTooLargeError) {
      throw new Error(`upstream ${url} sent a discovery response larger than ${maxPageBytes} bytes (limit UPSTREAM_RESPONSE_MAX_BYTES = ${maxPageBytes}); serve the lists in smaller pages`, { cause });
    }
    throw err;
  }
}

async function listEverything(client: Client, transport: StreamableHTTPClientTransport, opts: { timeout: number; signal: AbortSignal }): Promise<DiscoveredCatalog> {
  await client.connect(transport, opts);
  try {
    const caps = client.getServerCapabilities() ?? {};
    const out: DiscoveredCatalog = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
    if (caps.tools) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.listTools(cursor ? { cursor } : {}, opts);
        out.tools.push(...(res.tools as ToolDefinition[]).map(withTaskSupport));
        cursor = res.nextCursor;
        if (!cursor) break;
      }
    }
    if (caps.resources) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.listResources(cursor ? { cursor } : {}, opts);
        out.resources.push(...(res.resources as ResourceDefinition[]));
        cursor = res.nextCursor;
        if (!cursor) break;
      }
      for (let page = 0, c: string | undefined; page < MAX_PAGES; page++) {
        const res = await client.listResourceTemplates(c ? { cursor: c } : {}, opts);
        out.resourceTemplates.push(...(res.resourceTemplates as ResourceTemplateDefinition[]));
        c = res.nextCursor;
        if (!c) break;
      }
    }
    if (caps.prompts) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.listPrompts(cursor ? { cursor } : {}, opts);
        out.prompts.push(...(res.prompts as PromptDefinition[]));
        cursor = res.nextCursor;
        if (!cursor) break;
      }
    }
    return out;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * An upstream tool that declares 2025-11-25 `execution.taskSupport: "optional"` may run long
 * (the SDK answers a plain call by waiting for its own task): the gateway then lets such a
 * call become a gateway task for clients that declared the tasks extension. `required` needs
 * a task-augmented upstream call, which the gateway does not make, so it is not carried over.
 * The upstream's own fields are kept as they came (publishing never copies unknown ones).
 */
function withTaskSupport(tool: ToolDefinition): ToolDefinition {
  const execution = (tool as { execution?: unknown }).execution;
  const support = typeof execution === 'object' && execution !== null ? (execution as { taskSupport?: unknown }).taskSupport : undefined;
  if (support !== 'optional') {
    const { taskSupport: _dropped, ...rest } = tool;
    void _dropped;
    return rest;
  }
  return { ...tool, taskSupport: 'optional' };
}
