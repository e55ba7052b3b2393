import { ErrorCode, McpError, encodeError, isLegacyVersion } from '@switchboard/protocol';
import type { EdgeCall } from './edge-call';
import { serveResumption } from './resume-stream';

const EVENT_STREAM = /text\/event-stream/i;
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/**
 * Step 3 of a GET (after the guard and authentication): a resumption with `Last-Event-ID`,
 * else a heartbeat-only stream; modern protocol versions have no GET (405).
 */
export async function serveLegacyStream(call: EdgeCall): Promise<void> {
  const edge = call.edge;
  const version = call.header('mcp-protocol-version');
  const legacy = version === undefined || isLegacyVersion(version);
  const wantsStream = EVENT_STREAM.test(call.header('accept') ?? '');
  const lastEventId = call.header('last-event-id');
  if (legacy && wantsStream && lastEventId !== undefined && edge.streamEvents) {
    return serveResumption(call, lastEventId);
  }
  if (!legacy || !wantsStream) {
    const message = legacy ? 'GET needs Accept: text/event-stream' : 'Method not allowed: this protocol version has no GET stream';
    methodNotAllowed(call, legacy ? 'GET, POST' : 'POST', message);
    return;
  }
  // A heartbeat-only stream: this server never sends server-initiated messages, but legacy
  // clients (Claude Code, ChatGPT connector set-up) treat a 405 here as a dead server.
  call.hijack();
  const raw = call.res;
  raw.writeHead(200, SSE_HEADERS);
  raw.write(': stream open\n\n');
  const beat = setInterval(() => raw.write(': heartbeat\n\n'), edge.heartbeatMs);
  const end = setTimeout(() => raw.end(), edge.maxLifetimeMs);
  raw.once('close', () => {
    clearInterval(beat);
    clearTimeout(end);
  });
}

/** Step 3 of a DELETE (after the guard and authentication): this server is stateless, there is no session to delete. */
export function refuseDelete(call: EdgeCall): void {
  methodNotAllowed(call, 'GET, POST', 'Method not allowed: this server is stateless and has no sessions to delete');
}

function methodNotAllowed(call: EdgeCall, allow: string, message: string): void {
  call
    .code(405)
    .setHeader('allow', allow)
    .setHeader('content-type', 'application/json')
    .send(encodeError(null, new McpError(ErrorCode.InvalidRequest, message)));
  call.edge.refused(call);
}
