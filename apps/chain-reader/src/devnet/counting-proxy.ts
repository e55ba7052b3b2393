import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A JSON-RPC proxy that counts what passes through it (tests and bench). */
export interface CountingProxy {
  url: string;
  /** HTTP requests received. */
  readonly httpRequests: number;
  /** JSON-RPC calls by method (a batch counts each member). */
  readonly methods: Readonly<Record<string, number>>;
  count(method: string): number;
  total(): number;
  reset(): void;
  close(): Promise<void>;
}

/** Starts a counting HTTP proxy on 127.0.0.1 (port 0) in front of `targetUrl`. */
export async function startCountingProxy(targetUrl: string): Promise<CountingProxy> {
  let httpRequests = 0;
  let methods: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      httpRequests += 1;
      try {
        const parsed = JSON.parse(body.toString()) as unknown;
        for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
          const method =
            typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string'
              ? (m as { method: string }).method
              : '?';
          methods[method] = (methods[method] ?? 0) + 1;
        }
      } catch {
        methods['?'] = (methods['?'] ?? 0) + 1;
      }
      fetch(targetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get httpRequests() {
      return httpRequests;
    },
    get methods() {
      return methods;
    },
    count: (method) => methods[method] ?? 0,
    total: () => Object.values(methods).reduce((a, b) => a + b, 0),
    reset: () => {
      httpRequests = 0;
      methods = {};
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL where nothing listens (a dead RPC endpoint). */
export async function deadEndpointUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
