import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listenLoopback, readJsonBody, serveStateless, type LoopbackServer } from '@switchboard/testing';
import { z } from 'zod';

/** A stateless SDK upstream whose one tool's description the test can change (an upstream change to review). */
export interface ChangingUpstream {
  /** `http://localhost:<port>/mcp` (localhost is the test allow-list). */
  url: string;
  description: string;
  stop(): Promise<void>;
}

export async function startChangingUpstream(): Promise<ChangingUpstream> {
  const state = { description: 'Looks a customer up.' };
  const http: LoopbackServer = await listenLoopback(async (req, res) => {
    const server = new McpServer({ name: 'crm', version: '1.0.0' });
    server.registerTool(
      'lookup',
      {
        description: state.description,
        inputSchema: { id: z.string() },
        annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
      },
      async ({ id }) => ({ content: [{ type: 'text', text: `customer ${id}` }] }),
    );
    await serveStateless(server, req, res, req.method === 'POST' ? await readJsonBody(req) : undefined, { json: true });
  });
  return {
    url: http.url.replace('127.0.0.1', 'localhost'),
    get description() {
      return state.description;
    },
    set description(d: string) {
      state.description = d;
    },
    stop: () => http.stop(),
  };
}
