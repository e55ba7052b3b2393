import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { GuardedFetch } from '@switchboard/net-guard';

/** One discovered item: its kind, its upstream key (name, URI or URI template) and raw definition. */
export interface DiscoveredItem {
  kind: 'tool' | 'resource' | 'resource_template' | 'prompt';
  key: string;
  definition: Record<string, unknown>;
}

export interface DiscoverOptions {
  url: string;
  transport: 'auto' | 'streamable-http' | 'sse';
  headers: Record<string, string>;
  fetch: GuardedFetch;
  timeoutMs: number;
}

const MAX_PAGES = 200;

/**
 * Lists every tool, resource, resource template and prompt of an upstream MCP server with
 * the official SDK client, following every page. Streamable HTTP first; with `auto`, a
 * server that refuses it with a 4xx (a 2024-11-05 HTTP+SSE server) is retried over the
 * legacy SSE transport. All requests go through the SSRF-guarded fetch.
 */
export async function discoverServer(options: DiscoverOptions): Promise<{ items: DiscoveredItem[]; transport: 'streamable-http' | 'sse'; serverInfo: unknown }> {
  if (options.transport === 'sse') return { ...(await listAll(sseTransport(options), options)), transport: 'sse' };
  try {
    return { ...(await listAll(streamableTransport(options), options)), transport: 'streamable-http' };
  } catch (err) {
    if (options.transport === 'auto' && isLegacyRefusal(err)) {
      return { ...(await listAll(sseTransport(options), options)), transport: 'sse' };
    }
    throw err;
  }
}

function streamableTransport(o: DiscoverOptions): Transport {
  // `follow`: redirects are followed by the guarded fetch, which re-checks every target.
  return new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers: o.headers }, fetch: o.fetch, redirectPolicy: 'follow' });
}

function sseTransport(o: DiscoverOptions): Transport {
  return new SSEClientTransport(new URL(o.url), { requestInit: { headers: o.headers }, fetch: o.fetch, redirectPolicy: 'follow' });
}

/** Streamable HTTP refused in the way a 2024-11-05 server refuses it (404/405/400 on POST). */
function isLegacyRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'number' && code >= 400 && code < 500 && code !== 401 && code !== 403) return true;
  return /HTTP 4(0[045])|Unexpected content type|Error POSTing to endpoint \(HTTP 4/i.test((err as Error)?.message ?? '');
}

async function listAll(transport: Transport, o: DiscoverOptions): Promise<{ items: DiscoveredItem[]; serverInfo: unknown }> {
  const client = new Client({ name: 'switchboard-registry', version: '0.1.0' });
  const opts = { timeout: o.timeoutMs, maxTotalTimeout: o.timeoutMs };
  await client.connect(transport, opts);
  try {
    const caps = client.getServerCapabilities() ?? {};
    const items: DiscoveredItem[] = [];
    const pages = async <T>(fetchPage: (cursor?: string) => Promise<{ list: T[]; next?: string }>, add: (t: T) => void) => {
      let cursor: string | undefined;
      const seen = new Set<string>();
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await fetchPage(cursor);
        res.list.forEach(add);
        if (!res.next || seen.has(res.next)) return;
        seen.add(res.next);
        cursor = res.next;
      }
    };
    const c = (cursor?: string) => (cursor ? { cursor } : {});
    if (caps.tools) {
      await pages(async (cur) => {
        const r = await client.listTools(c(cur), opts);
        return { list: r.tools, next: r.nextCursor };
      }, (t) => items.push({ kind: 'tool', key: t.name, definition: t as Record<string, unknown> }));
    }
    if (caps.resources) {
      await pages(async (cur) => {
        const r = await client.listResources(c(cur), opts);
        return { list: r.resources, next: r.nextCursor };
      }, (r) => items.push({ kind: 'resource', key: r.uri, definition: r as Record<string, unknown> }));
      await pages(async (cur) => {
        const r = await client.listResourceTemplates(c(cur), opts);
        return { list: r.resourceTemplates, next: r.nextCursor };
      }, (r) => items.push({ kind: 'resource_template', key: r.uriTemplate, definition: r as Record<string, unknown> })).catch(() => undefined);
    }
    if (caps.prompts) {
      await pages(async (cur) => {
        const r = await client.listPrompts(c(cur), opts);
        return { list: r.prompts, next: r.nextCursor };
      }, (p) => items.push({ kind: 'prompt', key: p.name, definition: p as Record<string, unknown> }));
    }
    return { items, serverInfo: client.getServerVersion() };
  } finally {
    await client.close().catch(() => undefined);
  }
}
