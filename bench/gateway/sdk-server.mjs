// Baseline target for bench/gateway: the official MCP TypeScript SDK 1.x, stateless Streamable
// HTTP, built the way the SDK documents it (examples/server/simpleStatelessStreamableHttp: an
// Express app from createMcpExpressApp, and per POST a fresh server plus
// `new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })`).
//
// The fixture tools are raw JSON Schema, and SDK 1.x `McpServer.registerTool` only accepts zod
// shapes, so this uses the low-level `Server` with ListTools/CallTool request handlers — the
// SDK's own route for servers whose tool definitions are data.
//
// Env: PORT (0 = pick a free one), HOST (default 127.0.0.1), FIXTURE (tools JSON file).
// Prints `listening on http://<host>:<port>` when ready; serves GET /healthz for readiness polls.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { ECHO_TOOL, loadBenchTools } from './tools.mjs';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? '0');
const tools = loadBenchTools(process.env.FIXTURE);
const toolNames = new Set(tools.map((t) => t.name));

/** One server per request, as in the SDK's stateless example. */
function getServer() {
  const server = new Server(
    { name: 'bench-sdk-stateless', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (name === ECHO_TOOL.name) {
      const text = typeof args?.text === 'string' ? args.text : '';
      return { content: [{ type: 'text', text }] };
    }
    if (!toolNames.has(name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    // Fixture tools are declarations only; the bench never calls them.
    return { content: [{ type: 'text', text: `stub result for ${name}` }] };
  });
  return server;
}

const app = createMcpExpressApp({ host });

app.get('/healthz', (_req, res) => {
  res.status(200).json({ ok: true });
});

app.post('/mcp', async (req, res) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', () => {
      transport.close();
      server.close();
    });
  } catch (error) {
    console.error('Error handling MCP request:', error);
    if (!res.headersSent) {
      res.status(500).json({
        jsonrpc: '2.0',
        error: { code: -32603, message: 'Internal server error' },
        id: null,
      });
    }
  }
});

const methodNotAllowed = (_req, res) => {
  res.writeHead(405).end(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
  );
};
app.get('/mcp', methodNotAllowed);
app.delete('/mcp', methodNotAllowed);

const httpServer = app.listen(port, host, (error) => {
  if (error) {
    console.error('Failed to start server:', error);
    process.exit(1);
  }
  const address = httpServer.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  console.log(`sdk-server listening on http://${host}:${actualPort}`);
});

const shutdown = () => {
  httpServer.close();
  httpServer.closeAllConnections?.();
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
