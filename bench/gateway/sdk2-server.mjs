// Baseline target for bench/gateway: the official MCP TypeScript SDK v2 server
// (`@modelcontextprotocol/server`) on Fastify exactly as `@modelcontextprotocol/fastify`'s README
// shows its Streamable HTTP endpoint: `createMcpFastifyApp()` (localhost Host/Origin validation),
// and per POST a new server connected to a new stateless `NodeStreamableHTTPServerTransport`
// (`@modelcontextprotocol/node`), closed with the response.
//
// Tools are the same 40 fixture tools + bench `echo` as the SDK 1.x row (tools.mjs), through the
// low-level `Server` (the tools are JSON Schema data, not zod shapes).
//
// Env: PORT (0 = pick a free one), HOST (default 127.0.0.1), FIXTURE (tools JSON file).
// Prints `listening on http://<host>:<port>` when ready; serves GET /healthz for readiness polls.
import { createMcpFastifyApp } from '@modelcontextprotocol/fastify';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { Server } from '@modelcontextprotocol/server';
import { host, serveFastifyBench } from './serve.mjs';
import { callBenchTool, loadBenchTools } from './tools.mjs';

const tools = loadBenchTools(process.env.FIXTURE);
const toolNames = new Set(tools.map((t) => t.name));

function getServer() {
  const server = new Server({ name: 'bench-sdk-v2', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools }));
  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args } = request.params;
    return callBenchTool(toolNames, name, args) ?? { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
  });
  return server;
}

const app = createMcpFastifyApp({ host });

app.get('/healthz', async () => ({ ok: true }));

app.post('/mcp', async (request, reply) => {
  const server = getServer();
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  await transport.handleRequest(request.raw, reply.raw, request.body);
});

await serveFastifyBench('sdk2-server', app);
