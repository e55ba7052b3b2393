import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listenLoopback, readJsonBody, serveStateless } from '@switchboard/testing';
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
  const http = await listenLoopback(async (req, res) => {
    const body = await readJsonBody(req);
    for (const m of Array.isArray(body) ? body : [body]) {
      const msg = m as { method?: unknown; params?: { name?: unknown } } | undefined;
      if (msg?.method === 'tools/call' && typeof msg.params?.name === 'string') calls.push(msg.params.name);
    }
    const server = new McpServer({ name, version: '1.0.0' });
    for (const t of tools) {
      server.registerTool(
        t.name,
        { description: `${t.name} of ${name}`, inputSchema: t.inputSchema },
        async (args: Record<string, unknown>) => ({
          content: [{ type: 'text', text: t.answer ? t.answer(args) : JSON.stringify(args) }],
        }),
      );
    }
    await serveStateless(server, req, res, body, { json: true });
  });
  return { url: http.url, calls, stop: http.stop };
}
