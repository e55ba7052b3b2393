import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { listenLoopback, readJsonBody, type LoopbackServer } from './loopback-server';
import { HangingCalls, serveStateless } from './sdk-upstream';

export interface UpstreamOptions {
  /** Stateful: sessions kept in a map (unknown id ⇒ 404, as the spec says); stateless: a new server per POST, as the SDK docs show. */
  stateful: boolean;
  name: string;
}

/** What the upstream saw of one HTTP request. */
export interface SeenRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** JSON-RPC method of the body (POSTs only). */
  rpcMethod?: string;
}

/**
 * A real MCP server built with the official SDK 1.x, listening on 127.0.0.1:0, standing in
 * for a tenant's upstream. It records every request's headers so tests can assert which
 * credential reached it, and can forget its sessions or stop to simulate failures.
 */
export class TestUpstream {
  readonly seen: SeenRequest[] = [];
  /** Stateful mode: live transports by session id. */
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  private readonly servers = new Set<McpServer>();
  private readonly hanging = new HangingCalls();
  private http: LoopbackServer | undefined;
  /** Kept after stop: a test points the gateway at a stopped (down) upstream. */
  private address = '';
  /** Sessions the server has ever created (a re-initialisation shows up here). */
  sessionsCreated = 0;

  private constructor(private readonly options: UpstreamOptions) {}

  static async start(options: UpstreamOptions): Promise<TestUpstream> {
    const upstream = new TestUpstream(options);
    upstream.http = await listenLoopback((req, res) => upstream.handle(req, res));
    upstream.address = upstream.http.url;
    return upstream;
  }

  get url(): string {
    return this.address;
  }

  /** Calls of a tool seen by this upstream (by JSON-RPC method). */
  requests(rpcMethod: string): SeenRequest[] {
    return this.seen.filter((r) => r.rpcMethod === rpcMethod);
  }

  /** Forget every session, as a restarted stateful server would. */
  async dropSessions(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((t) => t.close().catch(() => undefined)));
  }

  /** Stops listening and drops every connection (the upstream is now "down"). */
  async stop(): Promise<void> {
    this.hanging.releaseAll();
    await this.dropSessions();
    for (const server of this.servers) await server.close().catch(() => undefined);
    this.servers.clear();
    const http = this.http;
    this.http = undefined;
    await http?.stop();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readJsonBody(req) : undefined;
    const rpcMethod = isObject(body) && typeof body.method === 'string' ? body.method : undefined;
    this.seen.push({ method: req.method ?? '', headers: { ...req.headers }, rpcMethod });

    if (!this.options.stateful) {
      if (req.method !== 'POST') {
        res
          .writeHead(405, { allow: 'POST', 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed.' } }));
        return;
      }
      const server = this.buildServer();
      await serveStateless(server, req, res, body, { onClose: () => this.servers.delete(server) });
      return;
    }

    const sessionId = req.headers['mcp-session-id'];
    const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    if (id !== undefined) {
      const transport = this.sessions.get(id);
      if (!transport) {
        // Spec: an unknown or expired session ⇒ 404, so the client initialises again.
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (rpcMethod !== 'initialize') {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, transport);
        this.sessionsCreated++;
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && this.sessions.get(transport.sessionId) === transport) this.sessions.delete(transport.sessionId);
    };
    const server = this.buildServer();
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private buildServer(): McpServer {
    const server = new McpServer({ name: this.options.name, version: '1.0.0' });
    this.servers.add(server);
    server.registerTool(
      'shout',
      { title: 'Shout', description: 'Upper-cases its text.', inputSchema: { text: z.string().describe('Text to shout') } },
      async ({ text }) => ({ content: [{ type: 'text', text: `${text.toUpperCase()} (from ${this.options.name})` }] }),
    );
    server.registerTool(
      'whoami',
      { title: 'Who am I', description: 'Reports which credential reached the upstream.', inputSchema: {} },
      async (_args, extra) => {
        const auth = extra.requestInfo?.headers.authorization;
        return { content: [{ type: 'text', text: `authorization=${String(auth)}` }] };
      },
    );
    server.registerTool(
      'hang',
      { title: 'Hang', description: 'Never answers until cancelled (or the upstream stops).', inputSchema: {} },
      (_args, extra) => this.hanging.hold(extra.signal),
    );
    server.registerResource('readme', 'upstream://readme', { title: 'Readme', mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `readme of ${this.options.name}` }],
    }));
    server.registerPrompt('greet', { title: 'Greet', description: 'Greets someone.', argsSchema: { who: z.string() } }, ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${who}! (from ${this.options.name})` } }],
    }));
    return server;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
