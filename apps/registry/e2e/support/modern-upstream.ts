import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';

/** A real 2026-07-28-only MCP server and what it was asked. */
export interface ModernUpstream {
  url: string;
  /** JSON-RPC methods received, in order (batches flattened). */
  methods: string[];
  /** `MCP-Protocol-Version` header of every POST. */
  versions: Array<string | undefined>;
  /** HTTP status of every answer, in order. */
  statuses: number[];
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

/**
 * Starts an SDK v2 server (`@modelcontextprotocol/server`) behind `createMcpHandler` with
 * `legacy: 'reject'`: stateless, `server/discover` + per-request `_meta`, and every 2025-era
 * request (an `initialize` included) refused — the upstream the SDK 1.x client cannot reach.
 */
export async function startModernUpstream(name: string, tools: string[], prompts: string[] = []): Promise<ModernUpstream> {
  const factory = () => {
    const server = new McpServer({ name, version: '2.0.0' });
    for (const tool of tools) {
      server.registerTool(tool, { description: `${tool} of ${name}` }, async () => ({
        content: [{ type: 'text', text: JSON.stringify({ server: name, tool }) }],
      }));
    }
    for (const prompt of prompts) {
      server.registerPrompt(prompt, { description: `${prompt} prompt of ${name}` }, async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      }));
    }
    return server;
  };
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  const state: ModernUpstream = { url: '', methods: [], versions: [], statuses: [], authorizations: [], close: async () => undefined };

  const http: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST') {
          state.versions.push(req.headers['mcp-protocol-version'] as string | undefined);
          state.authorizations.push(req.headers.authorization);
          try {
            const parsed = JSON.parse(body.toString('utf8')) as unknown;
            for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
              const method = (m as { method?: unknown }).method;
              if (typeof method === 'string') state.methods.push(method);
            }
          } catch {
            // Not JSON: the handler answers it.
          }
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) {
          if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        }
        const response = await handler.fetch(
          new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
            method: req.method,
            headers,
            ...(body.length > 0 ? { body } : {}),
          }),
        );
        state.statuses.push(response.status);
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        if (response.body) {
          for await (const chunk of response.body) res.write(chunk);
        }
        res.end();
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://localhost:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    await handler.close().catch(() => undefined);
    await new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  };
  return state;
}
