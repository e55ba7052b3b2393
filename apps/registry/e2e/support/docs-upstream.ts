import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { serveStateless } from './harness';

/**
 * A stateless SDK-built MCP server whose tool carries ChatGPT-only `_meta` (securitySchemes and an
 * `openai/` key), so the Claude and OpenAI surfaces visibly differ. Its tool has no title upstream,
 * and by default declares only `readOnlyHint` (publishing it needs destructiveHint and openWorldHint
 * as overrides); `hints: 'all'` declares all three. `hold()` keeps requests waiting until `release()`
 * (a discovery visibly in progress).
 */
export async function startDocsUpstream(
  options: { hints?: 'partial' | 'all' } = {},
): Promise<{ url: string; hold(): void; release(): void; close(): Promise<void> }> {
  let held: Array<() => void> | undefined;
  const annotations =
    options.hints === 'all' ? { readOnlyHint: true, destructiveHint: false, openWorldHint: false } : { readOnlyHint: true };
  const build = () => {
    const server = new McpServer({ name: 'docs', version: '1.0.0' });
    server.registerTool(
      'search_docs',
      {
        description: 'Search the product documentation',
        inputSchema: { query: z.string() },
        annotations,
        _meta: { securitySchemes: [{ type: 'noauth' }], 'openai/toolInvocation/invoking': 'Searching the docs…' },
      },
      async ({ query }) => ({ content: [{ type: 'text', text: `results for ${query}` }] }),
    );
    return server;
  };
  const http: Server = createServer((req, res) => {
    if (held) {
      held.push(() => serve(req, res));
      return;
    }
    serve(req, res);
  });
  const serve = (req: IncomingMessage, res: ServerResponse) => serveStateless(build(), req, res);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(http.address() as AddressInfo).port}/mcp`,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
