import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The bearer token the demo upstream expects (the registry stores it encrypted and gateways send it). */
export const DEMO_UPSTREAM_TOKEN = 'demo-upstream-secret';

const CUSTOMERS: Record<string, { name: string; plan: string; mrr: number }> = {
  c_001: { name: 'Globex Corporation', plan: 'enterprise', mrr: 12_500 },
  c_002: { name: 'Initech', plan: 'team', mrr: 890 },
  c_003: { name: 'Umbrella Health', plan: 'business', mrr: 4_200 },
};

function buildServer(): McpServer {
  const server = new McpServer({ name: 'acme-crm', version: '1.0.0' });
  server.registerTool(
    'lookup_customer',
    {
      title: 'Look up a customer',
      description: 'Returns the plan and monthly revenue of a customer by id (c_001 … c_003).',
      inputSchema: { id: z.string().describe('Customer id, e.g. c_001') },
      // Reads one CRM record: nothing changes, same answer twice, and the CRM is the only world it touches.
      annotations: { title: 'Look up a customer', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }) => {
      const c = CUSTOMERS[id];
      if (!c) return { isError: true, content: [{ type: 'text', text: `No customer ${id}` }] };
      return { content: [{ type: 'text', text: JSON.stringify({ id, ...c }) }] };
    },
  );
  server.registerTool(
    'create_ticket',
    {
      title: 'Open a support ticket',
      description: 'Opens a support ticket for a customer and returns its id.',
      inputSchema: { customerId: z.string(), subject: z.string().max(200) },
      // Writes (a new ticket) but never deletes or overwrites; each call opens another ticket; stays inside the CRM.
      annotations: {
        title: 'Open a support ticket',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ customerId, subject }) => ({
      content: [{ type: 'text', text: `Ticket T-${Date.now() % 100000} opened for ${customerId}: ${subject}` }],
    }),
  );
  return server;
}

/**
 * A small MCP server built with the official SDK, started beside the platform by `npm start`
 * and registered as the demo tenant's upstream. Stateless Streamable HTTP on `/mcp`; it
 * answers only requests carrying its own bearer token.
 */
export async function startDemoUpstream(port = 0, host = '127.0.0.1'): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${DEMO_UPSTREAM_TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = buildServer();
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const address = http.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/mcp`,
    server: http,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
