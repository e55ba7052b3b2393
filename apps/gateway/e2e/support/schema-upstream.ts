import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { z } from 'zod';

/** A tool of a SchemaUpstream: its zod input shape becomes the published inputSchema (patterns included). */
export interface SchemaTool {
  name: string;
  inputSchema: z.ZodRawShape;
  /** What the tool answers (default: its arguments as JSON). */
  answer?: (args: Record<string, unknown>) => string;
}

export interface SchemaUpstream {
  url: string;
  /** tools/call requests that reached this upstream, by tool name. */
  calls: string[];
  stop(): Promise<void>;
}

/**
 * A stateless MCP server built with the official SDK (a new server per POST, as the SDK docs
 * show) whose tools declare the given input schemas — a tenant's upstream for validation and
 * limit tests. It records which tools were called so a test can prove a call never left the gateway.
 */
export async function startSchemaUpstream(name: string, tools: SchemaTool[]): Promise<SchemaUpstream> {
  const calls: string[] = [];
  const http = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      for (const m of Array.isArray(body) ? body : [body]) {
        const msg = m as { method?: unknown; params?: { name?: unknown } } | undefined;
        if (msg?.method === 'tools/call' && typeof msg.params?.name === 'string') calls.push(msg.params.name);
      }
      const server = new McpServer({ name, version: '1.0.0' });
      for (const t of tools) {
        server.registerTool(t.name, { description: `${t.name} of ${name}`, inputSchema: t.inputSchema }, async (args: Record<string, unknown>) => ({
          content: [{ type: 'text', text: t.answer ? t.answer(args) : JSON.stringify(args) }],
        }));
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(err) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
