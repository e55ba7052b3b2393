import type { LogLevel, RequestContext } from '@switchboard/protocol';

/** What an in-process tool, resource or prompt gets besides its arguments. */
export interface ToolContext {
  tenantId: string;
  /** Aborted when the client goes away or the call times out. */
  signal: AbortSignal;
  /** Reports progress; a no-op when the caller sent no `progressToken`. */
  progress(progress: number, total?: number, message?: string): void;
  /** Emits a `notifications/message`; a no-op when the caller did not ask for logs at that level. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Receives an unexpected error of a local tool (not a ToolError) for server-side logging;
   * the client only sees a generic message. Optional so contexts built in tests can omit it.
   */
  reportError?(err: unknown): void;
  /** Era, version and client facts (capabilities) of the request as the transport classified it; absent in unit tests. */
  request?: RequestContext;
  /**
   * MRTR (2026-07-28): the client's answers to an earlier `InputRequired`, by key (empty on a
   * first round), and the `requestState` it echoed back. Undefined on legacy requests, which
   * cannot carry input requests, so a handler asks for input only when this is present.
   */
  input?: { responses: Record<string, unknown>; requestState?: string };
  /**
   * Integrity protection for values that travel through the client and come back, such as an
   * MRTR `requestState`: sealed with the key every replica shares, so a retry may land anywhere.
   * Absent in unit tests. `open` returns undefined for an altered or foreign value.
   */
  state?: { seal(data: Record<string, unknown>): string; open(token: string): Record<string, unknown> | undefined };
  /**
   * SEP-1699 polling: ends the request's SSE stream now (after its priming event) while the call
   * goes on; the client resumes with `Last-Event-ID`. Present only when the stream is resumable.
   */
  closeStream?(): void;
}
