import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server on 127.0.0.1 standing in for a tenant's upstream (or any neighbour) in a test. */
export interface LoopbackServer {
  http: Server;
  port: number;
  /** `http://127.0.0.1:<port><path>` (path default `/mcp`). */
  url: string;
  /** Stops listening and drops every open connection. */
  stop(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 (port 0 = a free one). A handler that throws answers a JSON-RPC
 * internal error (500) rather than leaving the client hanging.
 */
export async function listenLoopback(
  handler: (...args: Parameters<RequestListener>) => Promise<void>,
  o: { port?: number; path?: string } = {},
): Promise<LoopbackServer> {
  const http = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(err) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return {
    http,
    port,
    url: `http://127.0.0.1:${port}${o.path ?? '/mcp'}`,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A request's body as JSON; undefined when empty or not JSON (the SDK transport then answers the parse error). */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
