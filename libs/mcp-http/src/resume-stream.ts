import { randomBytes } from 'node:crypto';
import type { EdgeReply, EdgeRequest } from './edge-http';
import { ErrorCode, McpError, encodeError } from '@switchboard/protocol';
import type { ResponseChannel, ResumableStream } from './response-channel';
import type { StateSealer } from './state-sealer';
import type { StreamEventStore } from './stream-event-store';

/** How often a resumed stream looks for the call's next events in the store. */
const POLL_MS = 200;

/** Makes `channel`'s SSE stream (if it becomes one) resumable: a random stream id, sealed event ids bound to the tenant. */
export function enableResume(channel: ResponseChannel, store: StreamEventStore, sealer: StateSealer, tenantId: string, retryMs = 1000): void {
  channel.enableResume(new LazyResume(store, sealer, tenantId, retryMs));
}

/** A stream's resumption state; its random id is drawn only if the answer becomes a stream (most are one JSON body). */
class LazyResume implements ResumableStream {
  private id: string | undefined;

  constructor(
    readonly store: StreamEventStore,
    private readonly sealer: StateSealer,
    readonly tenantId: string,
    readonly retryMs: number,
  ) {}

  get streamId(): string {
    return (this.id ??= randomBytes(16).toString('base64url'));
  }

  eventId(seq: number): string {
    return this.sealer.seal('stream-event', { t: this.tenantId, s: this.streamId, q: seq });
  }
}

/**
 * `GET` with `Last-Event-ID`: replays the stored events after that id, then follows the
 * stream until its final event (the response) or the stream lifetime. An id that is not ours,
 * or another tenant's, is 400; a stream no longer retained is 404.
 */
export async function serveResumption(
  req: EdgeRequest,
  reply: EdgeReply,
  opts: { store: StreamEventStore; sealer: StateSealer; tenantId: string; lastEventId: string; maxLifetimeMs: number; heartbeatMs: number },
): Promise<EdgeReply | undefined> {
  const data = opts.sealer.open('stream-event', opts.lastEventId);
  const refuse = (status: number, message: string) => reply.code(status).header('content-type', 'application/json').send(encodeError(null, new McpError(ErrorCode.InvalidRequest, message)));
  if (!data || data.t !== opts.tenantId || typeof data.s !== 'string' || typeof data.q !== 'number') {
    return refuse(400, 'Last-Event-ID was not issued by this endpoint');
  }
  const streamId = data.s;
  let after = data.q;
  const first = await opts.store.read(opts.tenantId, streamId, after);
  if (!first) return refuse(404, 'Last-Event-ID names a stream that is no longer retained (expired or over its bound); call again');
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const deadline = Date.now() + opts.maxLifetimeMs;
  let lastBeat = Date.now();
  let batch: Awaited<ReturnType<StreamEventStore['read']>> = first;
  while (!raw.destroyed) {
    for (const event of batch?.events ?? []) {
      raw.write(`id: ${opts.sealer.seal('stream-event', { t: opts.tenantId, s: streamId, q: event.seq })}\nevent: message\ndata: ${event.data}\n\n`);
      after = Math.max(after, event.seq);
    }
    if (batch === undefined || batch.final || Date.now() >= deadline) break;
    if (Date.now() - lastBeat >= opts.heartbeatMs) {
      raw.write(': heartbeat\n\n');
      lastBeat = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    batch = await opts.store.read(opts.tenantId, streamId, after).catch(() => undefined);
  }
  raw.end();
  void req;
  return undefined;
}
