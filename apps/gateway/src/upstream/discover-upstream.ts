import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from '@switchboard/catalog';

export interface DiscoveredCatalog {
  tools: ToolDefinition[];
  resources: ResourceDefinition[];
  resourceTemplates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}

const MAX_PAGES = 100;

/**
 * Lists everything an upstream MCP server offers, following every page, with the official
 * SDK client over Streamable HTTP. Used by the file source at boot (the registry's
 * discovery jobs do the same with persistence and review).
 */
export async function discoverUpstream(url: string, headers: Record<string, string>, timeoutMs: number): Promise<DiscoveredCatalog> {
  const client = new Client({ name: 'switchboard-gateway', version: '0.1.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const opts = { timeout: timeoutMs };
  await client.connect(transport, opts);
  try {
    const caps = client.getServerCapabilities() ?? {};
    const out: DiscoveredCatalog = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
    if (caps.tools) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.listTools(cursor ? { cursor } : {}, opts);
        out.tools.push(...(res.tools as ToolDefinition[]));
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
