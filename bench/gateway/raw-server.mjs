// "Practical limit" target for bench/gateway: a bare Fastify route that answers tools/list by
// writing a precompiled buffer of the same 40-tool response the SDK baseline produces (only the
// JSON-RPC id is spliced in per request), and answers tools/call of `echo` directly. No MCP
// machinery at all — the ceiling any MCP server on Fastify/Node could approach on this machine.
//
// Env: PORT (0 = pick a free one), HOST (default 127.0.0.1), FIXTURE (tools JSON file).
// Prints `listening on http://<host>:<port>` when ready; serves GET /healthz for readiness polls.
import Fastify from 'fastify';
import { ECHO_TOOL, loadBenchTools } from './tools.mjs';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? '0');
const tools = loadBenchTools(process.env.FIXTURE);

// Same key order as the SDK's wire output: {"result":…,"jsonrpc":"2.0","id":…}.
const listHead = Buffer.from(`{"result":${JSON.stringify({ tools })},"jsonrpc":"2.0","id":`);
const tail = Buffer.from('}');

function errorBody(id, code, message) {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ ok: true }));

app.post('/mcp', async (request, reply) => {
  reply.header('content-type', 'application/json');
  const body = request.body;
  if (typeof body !== 'object' || body === null || typeof body.method !== 'string') {
    reply.code(400);
    return errorBody(null, -32600, 'Invalid Request: body must be a JSON-RPC request object');
  }
  const id = body.id ?? null;
  const idJson = JSON.stringify(id);
  if (body.method === 'tools/list') {
    return Buffer.concat([listHead, Buffer.from(idJson), tail]);
  }
  if (body.method === 'tools/call' && body.params?.name === ECHO_TOOL.name) {
    const text = typeof body.params.arguments?.text === 'string' ? body.params.arguments.text : '';
    return `{"result":${JSON.stringify({ content: [{ type: 'text', text }] })},"jsonrpc":"2.0","id":${idJson}}`;
  }
  return errorBody(id, -32601, `Method not found: ${body.method}`);
});

try {
  await app.listen({ host, port });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  console.log(`raw-server listening on http://${host}:${actualPort}`);
} catch (error) {
  console.error('Failed to start server:', error);
  process.exit(1);
}

const shutdown = () => {
  app.close().finally(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
