import { createHash, randomBytes } from 'node:crypto';
import type { EdgeCall } from './edge-call';
import { ErrorCode, McpError, type JsonRpcRequest } from '@switchboard/protocol';
import { NOTHING_CALLED } from './called-target';
import type { McpEdge } from './mcp-edge';
import type { AuthGranted } from './auth-outcome';
import type { ResponseChannel, ResumableStream } from './response-channel';
import type { StateSealer } from './state-sealer';
import type { StreamEventStore } from './stream-event-store';

/** How often a resumed stream looks for the call's next events in the store. */
const POLL_MS = 200;

/**
 * What a `GET` resumption is admitted as by the edge policy's limit step: not an MCP method
 * (the request has no JSON-RPC body), a name of its own so limits can tell resumptions apart.
 */
export const STREAM_RESUME_METHOD = 'stream/resume';
const RESUME_ADMISSION: JsonRpcRequest = Object.freeze({ jsonrpc: '2.0', id: 0, method: STREAM_RESUME_METHOD });

/**
 * The caller a resumption id is bound to: tenant, OAuth subject and client. An anonymous
 * caller (open tenant) has no identity to bind to; its ids carry a 128-bit random stream id
 * that was only ever written to its own response stream, so holding the sealed id is what
 * proves it is that caller (as a capability URL does). Binding anonymous ids to the client
 * address instead would break the very reconnects resumption exists for (NAT pools, mobile
 * networks, rotating IPv6 privacy addresses). The short `exp` bounds a leaked id either way.
 */
export function resumeScope(tenantId: string, auth: AuthGranted | undefined): string {
  return createHash('sha256')
    .update(`${tenantId}\n${auth?.subject ?? ''}\n${auth?.clientId ?? ''}`)
    .digest('base64url')
    .slice(0, 22);
}

/** Makes `channel`'s SSE stream (if it becomes one) resumable: a random stream id, sealed event ids bound to the caller and expiring. */
export function enableResume(channel: ResponseChannel, edge: McpEdge, tenantId: string, auth: AuthGranted | undefined): void {
  if (!edge.streamEvents) return;
  channel.enableResume(new LazyResume(edge, edge.streamEvents, tenantId, auth));
}

/**
 * A stream's resumption state; its random id and the caller's scope hash are made only if the
 * answer becomes a stream (most are one JSON body, and pay for neither).
 */
class LazyResume implements ResumableStream {
  private id: string | undefined;
  private scope: string | undefined;

  private readonly sealer: StateSealer;
  private readonly ttlSeconds: number;
  readonly retryMs: number;

  constructor(
    edge: McpEdge,
    readonly store: StreamEventStore,
    readonly tenantId: string,
    private readonly auth: AuthGranted | undefined,
  ) {
    this.sealer = edge.sealer;
    this.ttlSeconds = edge.resumeTtlSeconds;
    this.retryMs = edge.sseRetryMs ?? 1000;
  }

  get streamId(): string {
    return (this.id ??= randomBytes(16).toString('base64url'));
  }

  eventId(seq: number): string {
    this.scope ??= resumeScope(this.tenantId, this.auth);
    return this.sealer.seal('stream-event', { t: this.tenantId, c: this.scope, s: this.streamId, q: seq }, this.ttlSeconds);
  }
}

/**
 * `GET` with `Last-Event-ID`: admitted by the edge policy's limit step like any request (a
 * refusal is 429 with the limiter's error and `Retry-After`), then replays the stored events
 * after that id and follows the stream until its final event (the response) or the stream
 * lifetime. An id that is not ours, or another tenant's, is 400; an expired one 400 saying
 * so; another caller's 403; a stream no longer retained 404.
 */
export async function serveResumption(call: EdgeCall, lastEventId: string): Promise<void> {
  const { edge, target, auth } = call;
  const store = edge.streamEvents!;
  const tenantId = target.tenantId;
  const refuse = (status: number, message: string) => edge.refuse(call, status, new McpError(ErrorCode.InvalidRequest, message));
  const policy = edge.policy;
  if (policy.admit) {
    const refusal = await policy.admit(call, target, { message: RESUME_ADMISSION, era: 'legacy', auth, called: NOTHING_CALLED });
    if (refusal) {
      // A GET has no JSON-RPC response to carry the error in a 200: the status says it (the SDK retries with backoff).
      call.setHeaders(refusal.headers);
      return edge.refuse(call, 429, refusal.error);
    }
  }
  const checked = edge.sealer.check('stream-event', lastEventId);
  if (!checked.ok && checked.reason === 'expired') return refuse(400, 'Last-Event-ID has expired; call again');
  const data = checked.ok ? checked.data : undefined;
  if (!data || data.t !== tenantId || typeof data.s !== 'string' || typeof data.q !== 'number') {
    return refuse(400, 'Last-Event-ID was not issued by this endpoint');
  }
  const scope = resumeScope(tenantId, auth);
  if (data.c !== scope) return refuse(403, 'Last-Event-ID was issued to another caller');
  const streamId = data.s;
  let after = data.q;
  const first = await store.read(tenantId, streamId, after);
  if (!first) return refuse(404, 'Last-Event-ID names a stream that is no longer retained (expired or over its bound); call again');
  call.hijack();
  const raw = call.res;
  raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const deadline = Date.now() + edge.maxLifetimeMs;
  let lastBeat = Date.now();
  let batch: Awaited<ReturnType<StreamEventStore['read']>> = first;
  while (!raw.destroyed) {
    for (const event of batch?.events ?? []) {
      raw.write(
        `id: ${edge.sealer.seal('stream-event', { t: tenantId, c: scope, s: streamId, q: event.seq }, edge.resumeTtlSeconds)}\nevent: message\ndata: ${event.data}\n\n`,
      );
      after = Math.max(after, event.seq);
    }
    if (batch === undefined || batch.final || Date.now() >= deadline) break;
    if (Date.now() - lastBeat >= edge.heartbeatMs) {
      raw.write(': heartbeat\n\n');
      lastBeat = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    batch = await store.read(tenantId, streamId, after).catch(() => undefined);
  }
  raw.end();
}
