import { createServer, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { READ_ONLY_HINTS, serveStateless } from './harness';

export interface WhoamiUpstream {
  url: string;
  /** The Authorization header of every request received, in order. */
  bearers: Array<string | undefined>;
  close(): Promise<void>;
}

/** An SDK-built upstream MCP server that records every bearer it receives and answers `whoami` with it. */
export async function startWhoamiUpstream(): Promise<WhoamiUpstream> {
  const bearers: Array<string | undefined> = [];
  const http: Server = createServer((req, res) => {
    const authorization = req.headers.authorization;
    bearers.push(authorization);
    const server = new McpServer({ name: 'crm', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who the upstream thinks is calling', annotations: READ_ONLY_HINTS }, async () => ({
      content: [{ type: 'text', text: `authorization=${authorization ?? ''}` }],
    }));
    serveStateless(server, req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const addr = http.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}/mcp`, bearers, close: () => new Promise<void>((r) => http.close(() => r())) };
}
