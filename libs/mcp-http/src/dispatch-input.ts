import type { HttpHeaders, JsonRpcRequest, RequestContext } from '@switchboard/protocol';
import type { AuthGranted } from './auth-outcome';
import type { McpTarget } from './mcp-target';

/** Where a dispatched request may send notifications (its own response stream). */
export interface NotificationSink {
  notify(encoded: string): void;
  /** False once notifications are dropped (the call's budget is spent); absent ⇒ always relayed. */
  readonly relaying?: boolean;
  /** Whether {@link closeStream} can work (the stream is stored for Last-Event-ID resumption). */
  readonly canResume?: boolean;
  /** Ends the SSE stream early; the rest of the call's events are only stored. */
  closeStream?(): void;
}

export interface DispatchInput {
  message: JsonRpcRequest;
  context: RequestContext;
  target: McpTarget;
  surfaceId: string;
  /** The client declared MCP Apps (`io.modelcontextprotocol/ui`): lists come from the surface's `+apps` variant. */
  mcpApps?: boolean;
  sink: NotificationSink | undefined;
  signal: AbortSignal;
  /** The verified caller on a protected tenant. */
  auth?: AuthGranted;
  /** Told when a tools/call answers with `isError: true` (an outcome for spans and metrics). */
  toolErrors?: { toolFailed(): void };
  /** The HTTP request headers (SEP-2243 `Mcp-Param-*` checks on modern tools/call). */
  headers?: HttpHeaders;
}
