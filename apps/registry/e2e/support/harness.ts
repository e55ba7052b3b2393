import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { pollUntil as until } from '@switchboard/testing';
import { z } from 'zod';

// The built-app processes, database and admin-API helpers live in libs/testing (the gateway's e2e uses them too).
export {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  REDIS_URL,
  registerAndDiscover,
  registryEnv,
  REPO_ROOT,
  spawnApp,
  startGateway,
  startRegistry,
  testEnv,
  type ApiResult,
  type Proc,
} from '@switchboard/testing';

/** Polls `fn` until it returns a truthy value or the deadline passes (15 s by default). */
export { until };

export type UpstreamMode = 'ok' | 'hang' | 'garbage' | 'down' | 'hold';

/** The three hint annotations publishing requires, for a read-only tool that touches nothing outside its server. */
export const READ_ONLY_HINTS = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

export interface TestUpstream {
  /** `http://localhost:<port>/mcp` (localhost is the test allow-list). */
  url: string;
  /** Authorization header of every request received. */
  authorizations: Array<string | undefined>;
  mode: UpstreamMode;
  /** Answers the requests held in `hold` mode and switches back to `ok`. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A stateless SDK-built MCP server with the given tools (each echoes its name and args); switchable
 * into fault modes. The tool list is read on every request, so a test can change it (a changed
 * upstream) by mutating the array it passed.
 */
export async function startUpstream(
  name: string,
  tools: Array<{ name: string; description?: string; annotations?: Record<string, unknown>; inputSchema?: z.ZodRawShape }>,
  options: { redirectTo?: string } = {},
): Promise<TestUpstream> {
  let held: Array<() => void> = [];
  const state: TestUpstream = {
    url: '',
    authorizations: [],
    mode: 'ok',
    release: () => {
      state.mode = 'ok';
      const waiting = held;
      held = [];
      for (const go of waiting) go();
    },
    close: async () => undefined,
  };
  const build = () => {
    const server = new McpServer({ name, version: '1.0.0' });
    for (const t of tools) {
      const config = {
        description: t.description ?? `${t.name} of ${name}`,
        inputSchema: t.inputSchema ?? { text: z.string().optional() },
        ...(t.annotations ? { annotations: t.annotations } : {}),
      };
      server.registerTool(t.name, config, async (args) => ({
        content: [{ type: 'text', text: JSON.stringify({ server: name, tool: t.name, args }) }],
      }));
    }
    return server;
  };
  const http: Server = createServer((req: IncomingMessage, res) => {
    if (options.redirectTo) {
      res.writeHead(307, { location: options.redirectTo }).end();
      return;
    }
    state.authorizations.push(req.headers.authorization);
    if (state.mode === 'hang') return; // never answers
    if (state.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<<not json at all>>');
      return;
    }
    const serve = () => serveStateless(build(), req, res);
    // `hold`: answered only once the test calls release() (a discovery visibly in progress).
    if (state.mode === 'hold') held.push(serve);
    else serve();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://localhost:${(http.address() as AddressInfo).port}/mcp`;
  state.close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return state;
}

/**
 * Answers one HTTP request with a fresh SDK server on a stateless Streamable HTTP transport
 * (JSON responses), closing both when the response ends: how every test upstream serves.
 */
export function serveStateless(server: McpServer, req: IncomingMessage, res: ServerResponse): void {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  void server.connect(transport).then(() => transport.handleRequest(req, res));
}

/** An SDK client connected to a gateway MCP URL, sending its own (client) bearer token. */
export async function mcpClient(url: string, clientToken = 'client-token-must-not-reach-upstream'): Promise<Client> {
  const client = new Client({ name: 'e2e-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${clientToken}` } } }),
  );
  return client;
}
