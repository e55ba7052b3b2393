import type { EdgeReply, EdgeRequest } from './edge-http';
import { ErrorCode, McpError, encodeError, isLegacyVersion } from '@switchboard/protocol';
import { header, type McpEdge } from './mcp-edge';
import type { AuthGranted, McpTarget } from './mcp-target';
import { serveResumption } from './resume-stream';

const EVENT_STREAM = /text\/event-stream/i;
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' } as const;

/**
 * The legacy GET stream (after the guard and authentication): a resumption with
 * `Last-Event-ID`, else a heartbeat-only stream; modern protocol versions have no GET (405).
 */
export async function serveLegacyStream(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget, auth: AuthGranted | undefined): Promise<void> {
  const version = header(req, 'mcp-protocol-version');
  const legacy = version === undefined || isLegacyVersion(version);
  const wantsStream = EVENT_STREAM.test(header(req, 'accept') ?? '');
  const lastEventId = header(req, 'last-event-id');
  if (legacy && wantsStream && lastEventId !== undefined && edge.streamEvents) {
    return serveResumption(edge, req, reply, target, auth, lastEventId);
  }
  if (!legacy || !wantsStream) {
    methodNotAllowed(edge, req, reply, target, legacy ? 'GET, POST' : 'POST', legacy ? 'GET needs Accept: text/event-stream' : 'Method not allowed: this protocol version has no GET stream');
    return;
  }
  // A heartbeat-only stream: this server never sends server-initiated messages, but legacy
  // clients (Claude Code, ChatGPT connector set-up) treat a 405 here as a dead server.
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, SSE_HEADERS);
  raw.write(': stream open\n\n');
  const beat = setInterval(() => raw.write(': heartbeat\n\n'), edge.heartbeatMs);
  const end = setTimeout(() => raw.end(), edge.maxLifetimeMs);
  raw.once('close', () => {
    clearInterval(beat);
    clearTimeout(end);
  });
}

/** DELETE (after the guard and authentication): this server is stateless, there is no session to delete. */
export function refuseDelete(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget): void {
  methodNotAllowed(edge, req, reply, target, 'GET, POST', 'Method not allowed: this server is stateless and has no sessions to delete');
}

function methodNotAllowed(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget, allow: string, message: string): void {
  void reply.code(405).header('allow', allow).header('content-type', 'application/json').send(encodeError(null, new McpError(ErrorCode.InvalidRequest, message)));
  edge.refused(req, reply, target.tenantId);
}
