// The zero-latency upstream for bench/gateway's proxied tools/call workload: a real MCP server
// built with the official SDK 1.x (`McpServer`, one `echo` tool), stateful Streamable HTTP with
// JSON responses (`enableJsonResponse`), one server + transport per session kept in a map — the
// SDK's documented sessionful setup, and the cheapest way the SDK serves repeated calls (no
// per-request server construction). The gateway reaches it as a `stateful: true` upstream; the
// "upstream direct" row calls it with a session the bench opens itself (the raw proxy opens its own).
//
// Env: PORT (0 = pick a free one), HOST (default 127.0.0.1).
// Prints `listening on http://<host>:<port>` when ready; serves GET /healthz for readiness polls.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { benchHttpServer, readBody, serveBench } from './serve.mjs';

/** Bounded: the bench opens three sessions (the gateway's, the raw proxy's and its own); anything past this is refused. */
const MAX_SESSIONS = 64;
const sessions = new Map();

function newServer() {
  const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echo the given text back.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

const readJson = async (req) => JSON.parse((await readBody(req)).toString('utf8'));

/**
 * SDK 1.x (through 1.32) leaks one `_streamMapping` entry per POST in JSON-response mode: `send()`
 * resolves the pending response but never runs the mapping's cleanup (typescript-sdk#2559; the
 * fix, #2747, is not released). On this long-lived session that is ~12 KB per call — 3 GB of
 * heap by the end of a run, whose GC pauses then set every proxied row's p99. Until the SDK
 * ships the fix, the entry is released the moment its response is resolved, as #2747 does.
 */
function releaseJsonStreams(transport) {
  const map = (transport._webStandardTransport ?? transport)._streamMapping;
  if (!(map instanceof Map)) throw new Error('SDK internals changed: re-check typescript-sdk#2559 before removing this workaround');
  const set = map.set.bind(map);
  map.set = (id, stream) => {
    const resolve = stream?.resolveJson;
    if (resolve) stream.resolveJson = (response) => (map.delete(id), resolve(response));
    return set(id, stream);
  };
}

const httpServer = benchHttpServer(async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (existing) {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    await existing.handleRequest(req, res, body);
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(typeof sessionId === 'string' ? 404 : 400).end();
    return;
  }
  const body = await readJson(req);
  if (typeof sessionId === 'string' || !isInitializeRequest(body) || sessions.size >= MAX_SESSIONS) {
    res.writeHead(typeof sessionId === 'string' ? 404 : 400, { 'content-type': 'application/json' });
    res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No valid session"}}');
    return;
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  releaseJsonStreams(transport);
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await newServer().connect(transport);
  await transport.handleRequest(req, res, body);
});

serveBench('upstream-server', httpServer);
