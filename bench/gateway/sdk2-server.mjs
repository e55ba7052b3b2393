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
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { benchHttpServer, host, readBody, serveBench } from './serve.mjs';
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

const handler = createMcpHandler(getServer, { onerror: () => undefined });

const httpServer = benchHttpServer(async (req, res) => {
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
});

serveBench('sdk2-server', httpServer);
