import type { Dispatcher } from 'undici';

export interface DirectSession {
  url: URL;
  /** The upstream's own credential and headers, already stripped of forbidden ones. */
  headers: Record<string, string>;
  /** Read per request: the SDK transport may re-learn them. */
  sessionId(): string | undefined;
  protocolVersion(): string | undefined;
  dispatcher: Dispatcher;
  /** Answers the upstream's server→client requests arriving on a call's event stream. */
  answer(method: string, params: Record<string, unknown>): Promise<unknown>;
}

export interface DirectCallOptions {
  signal: AbortSignal;
  /** Largest body, or (event stream) largest single event, in bytes. */
  maxBytes: number;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** Other notifications the upstream sends on this call's event stream (logging messages, resource updates). */
  onnotification?: (method: string, params: Record<string, unknown>) => void;
  /** Extra `params._meta` entries (trace context); a progress token is added when `onprogress` is set. */
  meta?: Record<string, unknown>;
  /** Extra request headers (trace context). */
  headers?: Record<string, string>;
  /** Largest event-stream answer in total bytes (every event and the answer); past it the call fails with a {@link ResponseTooLargeError} of unit `stream`. */
  maxStreamBytes?: number;
  /**
   * Whether the call still relays the upstream's notifications (false once its notification
   * byte budget is spent): when not, notification events are skipped without being parsed.
   */
  relaying?: () => boolean;
  /**
   * Meters the bytes of each notification event the upstream sends (relayed or skipped) and
   * answers how many ms reading should pause to repay what is over the caller's share: the
   * socket is then not read, so a flooding upstream is slowed by TCP instead of costing CPU.
   */
  pace?: (bytes: number) => number;
}

/**
 * Events of direct requests' event-stream answers in this process: `parsed` as JSON, `skipped`
 * unparsed (notifications of a call that no longer relays them); `paused` reads stopped to
 * repay a tenant's notification share. Read by tests and benches.
 */
export const directEventCounts = { parsed: 0, skipped: 0, paused: 0 };
