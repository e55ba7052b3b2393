import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

/** A 2024-11-05-style MCP server built with the SDK 1.x: HTTP+SSE only (GET /sse opens the stream, POST /messages carries requests). */
export interface SseUpstream {
  /** The URL a tenant registers (the event-stream endpoint). */
  url: string;
  /** Every request's method and Authorization header, in order. */
  seen: Array<{ method: string; path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

export async function startSseUpstream(name: string): Promise<SseUpstream> {
  const transports = new Map<string, SSEServerTransport>();
  const seen: SseUpstream['seen'] = [];
  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    seen.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      const server = new McpServer({ name, version: '1.0.0' });
      server.registerTool('legacy_echo', { description: `Echo from ${name}`, inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: 'text', text: `${name}: ${text}` }],
      }));
      void server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) {
        res.writeHead(404).end('unknown session');
        return;
      }
      void transport.handlePostMessage(req, res);
      return;
    }
    // Streamable HTTP does not exist here: a POST to the stream URL is refused as old servers do.
    res.writeHead(405, { allow: 'GET' }).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}/sse`,
    seen,
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
