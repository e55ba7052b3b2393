import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listenLoopback, readJsonBody } from './loopback-server';
import { serveStateless } from './sdk-upstream';

/** The URI both app upstreams publish their view under (so a tenant with both must namespace it). */
export const APP_CARD_URI = 'ui://widget/card.html';
export const MCP_APP_MIME = 'text/html;profile=mcp-app';

export interface AppUpstream {
  url: string;
  /** The CSP the view's resource declares (`_meta.ui.csp`). */
  csp: { connectDomains: string[]; resourceDomains: string[] };
  /** resources/read URIs that reached this upstream. */
  reads: string[];
  stop(): Promise<void>;
}

/**
 * An MCP App server built with the official SDK (stateless, a server per POST): a `show` tool
 * whose `_meta.ui.resourceUri` names its `ui://` view, and that view as an HTML resource of type
 * `text/html;profile=mcp-app` with CSP metadata, its body naming the server (SEP-1865).
 */
export async function startAppUpstream(name: string): Promise<AppUpstream> {
  const csp = { connectDomains: [`https://api.${name}.example`], resourceDomains: [`https://cdn.${name}.example`] };
  const reads: string[] = [];
  const http = await listenLoopback(async (req, res) => {
    const body = await readJsonBody(req);
    for (const m of Array.isArray(body) ? body : [body]) {
      const msg = m as { method?: unknown; params?: { uri?: unknown } } | undefined;
      if (msg?.method === 'resources/read' && typeof msg.params?.uri === 'string') reads.push(msg.params.uri);
    }
    const server = new McpServer({ name, version: '1.0.0' });
    server.registerTool(
      'show',
      { description: `Shows a ${name} card`, _meta: { ui: { resourceUri: APP_CARD_URI }, 'openai/outputTemplate': APP_CARD_URI } },
      async () => ({ content: [{ type: 'text', text: `${name} card data` }], structuredContent: { server: name } }),
    );
    server.registerResource(
      'card',
      APP_CARD_URI,
      { title: `${name} card`, mimeType: MCP_APP_MIME, _meta: { ui: { csp, prefersBorder: true } } },
      async (uri) => ({
        contents: [{ uri: uri.href, mimeType: MCP_APP_MIME, text: `<html><body>${name} view</body></html>`, _meta: { ui: { csp } } }],
      }),
    );
    server.registerResource('readme', `docs://${name}/readme`, { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: `${name} readme` }],
    }));
    await serveStateless(server, req, res, body, { json: true });
  });
  return { url: http.url, csp, reads, stop: http.stop };
}
