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
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { host, serveBench } from './serve.mjs';
import { callBenchTool, loadBenchTools } from './tools.mjs';

const tools = loadBenchTools(process.env.FIXTURE);
const toolNames = new Set(tools.map((t) => t.name));

/** One server per request, as in the SDK's stateless example. */
function getServer() {
  const server = new Server({ name: 'bench-sdk-stateless', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const result = callBenchTool(toolNames, name, args);
    if (!result) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return result;
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
  res.writeHead(405).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
};
app.get('/mcp', methodNotAllowed);
app.delete('/mcp', methodNotAllowed);

// What express's app.listen does, through the shared listener.
serveBench('sdk-server', createServer(app));
