import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { HangingCalls, serveStateless } from '@switchboard/testing';
import { z } from 'zod';

export interface HostileOptions {
  name: string;
  /** Answer POSTs with one JSON body instead of an SSE stream (the SDK's `enableJsonResponse`). */
  json?: boolean;
  /** Bytes of the `hostile://blob` resource and of the `bulky` prompt's text. */
  blobBytes?: number;
  /** Extra tools whose descriptions make `tools/list` about this many bytes (a page too large to discover). */
  listBytes?: number;
  /** When set, a tools/call without exactly this Authorization gets a 401 (discovery still works). */
  requireAuth?: string;
}

/**
 * A tenant's upstream that misbehaves on demand, built with the official SDK 1.x (stateless,
 * a server per POST): `big` returns `bytes` of text, `slow` answers after `ms`, `hang` never
 * answers, `crash` starts an answer then resets the connection, `garbage` answers 200 with a
 * body that is not JSON, `shout` behaves. Listens on 127.0.0.1:0.
 */
export class HostileUpstream {
  private http: Server | undefined;
  private port = 0;
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new HangingCalls();
  /** tools/call requests received, by tool name. */
  readonly calls = new Map<string, number>();
  /** The Authorization header of every request received ('' when absent). */
  readonly authorizations: string[] = [];

  private constructor(private readonly options: HostileOptions) {}

  static async start(options: HostileOptions): Promise<HostileUpstream> {
    const u = new HostileUpstream(options);
    const http = createServer((req, res) => {
      u.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    http.on('connection', (s) => {
      u.sockets.add(s);
      s.on('close', () => u.sockets.delete(s));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    u.http = http;
    u.port = (http.address() as AddressInfo).port;
    return u;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async stop(): Promise<void> {
    this.hanging.releaseAll();
    const http = this.http;
    this.http = undefined;
    if (!http) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.authorizations.push(req.headers.authorization ?? '');
    if (req.method !== 'POST') {
      req.resume();
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') as { method?: string; params?: { name?: string } } | null;
    const tool = body?.method === 'tools/call' ? body.params?.name : undefined;
    if (tool) this.calls.set(tool, (this.calls.get(tool) ?? 0) + 1);
    if (tool && this.options.requireAuth !== undefined && req.headers.authorization !== this.options.requireAuth) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      return;
    }
    if (tool === 'crash') {
      // Headers and half an SSE event, then a reset: the answer breaks mid-way.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":');
      setImmediate(() => res.socket?.destroy());
      return;
    }
    if (tool === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>this is not JSON-RPC</html>');
      return;
    }
    await serveStateless(this.build(), req, res, body, { json: this.options.json === true });
  }

  private build(): McpServer {
    const server = new McpServer({ name: this.options.name, version: '1.0.0' });
    server.registerTool('shout', { description: 'Upper-cases its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: text.toUpperCase() }],
    }));
    server.registerTool(
      'big',
      { description: 'Returns `bytes` bytes of text.', inputSchema: { bytes: z.number().int().min(0) } },
      async ({ bytes }) => ({
        content: [{ type: 'text', text: 'x'.repeat(bytes) }],
      }),
    );
    server.registerTool(
      'slow',
      { description: 'Answers after `ms` milliseconds.', inputSchema: { ms: z.number().int().min(0) } },
      ({ ms }) => new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: 'text', text: `slept ${ms}` }] }), ms)),
    );
    server.registerTool('hang', { description: 'Never answers until cancelled.', inputSchema: {} }, (_args, extra) =>
      this.hanging.hold(extra.signal),
    );
    // Answered at the HTTP level above; registered so discovery lists them.
    server.registerTool('crash', { description: 'Breaks its answer mid-way.', inputSchema: {} }, async () => ({ content: [] }));
    server.registerTool('garbage', { description: 'Answers with a body that is not JSON.', inputSchema: {} }, async () => ({
      content: [],
    }));
    if (this.options.listBytes) {
      const each = 10_000;
      for (let i = 0; i * each < this.options.listBytes; i++) {
        server.registerTool(`filler_${i}`, { description: 'd'.repeat(each), inputSchema: {} }, async () => ({ content: [] }));
      }
    }
    const blob = this.options.blobBytes ?? 10;
    server.registerResource('blob', 'hostile://blob', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'b'.repeat(blob) }],
    }));
    server.registerPrompt('bulky', { description: 'A very long prompt.' }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'p'.repeat(blob) } }],
    }));
    return server;
  }
}
