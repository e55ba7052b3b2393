// Baseline target for bench/gateway: the official MCP TypeScript SDK v2 server
// (`@modelcontextprotocol/server`), served by `createMcpHandler(factory)` — its serving entry,
// which answers 2025-era requests through the stateless legacy fallback (a fresh server per
// request) and 2026-07-28 requests on the modern path.
//
// The SDK documents Node frameworks wrapping that web-standard handler with `toNodeHandler`
// from `@modelcontextprotocol/node` (or `@modelcontextprotocol/fastify`). Neither adapter is
// installed in this repo (and installing packages is not allowed here), so this file does the
// same thing by hand with `node:http`: read the body, build a web `Request`, call
// `handler.fetch`, and stream the web `Response` back. That bridge is thin, but it is ours, not
// the adapter's: treat the row as "SDK v2 + a minimal node:http bridge".
//
// Tools are the same 40 fixture tools + bench `echo` as the SDK 1.x row (tools.mjs), through the
// low-level `Server` (the tools are JSON Schema data, not zod shapes).
//
// Env: PORT (0 = pick a free one), HOST (default 127.0.0.1), FIXTURE (tools JSON file).
// Prints `listening on http://<host>:<port>` when ready; serves GET /healthz for readiness polls.
import { createServer } from 'node:http';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { ECHO_TOOL, loadBenchTools } from './tools.mjs';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? '0');
const tools = loadBenchTools(process.env.FIXTURE);
const toolNames = new Set(tools.map((t) => t.name));

function getServer() {
  const server = new Server({ name: 'bench-sdk-v2', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools }));
  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args } = request.params;
    if (name === ECHO_TOOL.name) {
      const text = typeof args?.text === 'string' ? args.text : '';
      return { content: [{ type: 'text', text }] };
    }
    if (!toolNames.has(name)) return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
    return { content: [{ type: 'text', text: `stub result for ${name}` }] };
  });
  return server;
}

const handler = createMcpHandler(getServer, { onerror: () => undefined });

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const httpServer = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  (async () => {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const body = hasBody ? await readBody(req) : undefined;
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(key, v);
      else if (value !== undefined) headers.set(key, value);
    }
    const request = new Request(`http://${req.headers.host ?? host}${req.url}`, { method: req.method, headers, body });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  })().catch((error) => {
    console.error('Error handling MCP request:', error);
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal server error"}}');
  });
});

httpServer.listen(port, host, () => {
  const address = httpServer.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  console.log(`sdk2-server listening on http://${host}:${actualPort}`);
});

const shutdown = () => {
  httpServer.close();
  httpServer.closeAllConnections?.();
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
