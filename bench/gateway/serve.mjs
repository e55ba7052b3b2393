// Scaffolding shared by the bench's MCP targets (sdk-server, sdk2-server, upstream-server): the
// env they read, the readiness line run.mjs waits for, GET /healthz, the JSON-RPC 500 a failed
// request gets, and a clean exit on SIGTERM/SIGINT. Only the MCP part differs between targets.
import { createServer } from 'node:http';

export const host = process.env.HOST ?? '127.0.0.1';
export const port = Number(process.env.PORT ?? '0');

const INTERNAL_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal server error"}}';

/** The request body, whole. */
export async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Answers a request whose handling threw: logged, then a JSON-RPC internal error (unless already answering). */
export function internalError(res, error) {
  console.error('Error handling MCP request:', error);
  if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
  res.end(INTERNAL_ERROR);
}

/** A node:http server answering GET /healthz itself and every other request with `handle` (async). */
export function benchHttpServer(handle) {
  return createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    handle(req, res).catch((error) => internalError(res, error));
  });
}

/** Listens on HOST:PORT, prints `<name> listening on http://host:port` once bound, and exits cleanly on SIGTERM/SIGINT. */
export function serveBench(name, httpServer) {
  httpServer.on('error', (error) => {
    console.error('Failed to start server:', error);
    process.exit(1);
  });
  httpServer.listen(port, host, () => {
    const address = httpServer.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    console.log(`${name} listening on http://${host}:${actualPort}`);
  });
  const shutdown = () => {
    httpServer.close();
    httpServer.closeAllConnections?.();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/** The same for a Fastify app: listens on HOST:PORT, prints the readiness line, closes the app on SIGTERM/SIGINT. */
export async function serveFastifyBench(name, app) {
  try {
    await app.listen({ host, port });
    const address = app.server.address();
    console.log(`${name} listening on http://${host}:${typeof address === 'object' && address ? address.port : port}`);
  } catch (error) {
    console.error('Failed to start server:', error);
    process.exit(1);
  }
  const shutdown = () => {
    app.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
