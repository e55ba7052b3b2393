import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GuardedFetch } from '@switchboard/net-guard';
import type { Dispatcher } from 'undici';

/** `modern`: 2026-07-28 (`server/discover`, stateless requests); `legacy`: the `initialize` handshake (≤ 2025-11-25). */
export type UpstreamEra = 'modern' | 'legacy';
export type UpstreamTransport = 'streamable-http' | 'sse';
export type UpstreamTaskMethod = 'tools/call' | 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/update';
export type UpstreamListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

/** Server→client requests an upstream may send; answering one declares the matching client capability. */
export const RELAYED_REQUESTS = {
  'elicitation/create': { capability: 'elicitation', schema: ElicitRequestSchema },
  'roots/list': { capability: 'roots', schema: ListRootsRequestSchema },
  'sampling/createMessage': { capability: 'sampling', schema: CreateMessageRequestSchema },
} as const;
export type RelayedMethod = keyof typeof RELAYED_REQUESTS;

export interface ConnectUpstreamOptions {
  url: string;
  /** `auto`: 2026-07-28 first, then the legacy handshake when the server does not speak it. */
  era: UpstreamEra | 'auto';
  /** `auto`: Streamable HTTP, then the 2024-11-05 HTTP+SSE transport when the server refuses it the way those servers do. */
  transport: UpstreamTransport | 'auto';
  /** The upstream's own credential and headers (forbidden framing/protocol headers are stripped). */
  headers?: Record<string, string>;
  /** Every request's fetch (the SSRF-guarded one for tenant-registered upstreams); default the global fetch. */
  fetch?: GuardedFetch;
  /** Redirects are followed by `fetch` itself (the guarded fetch re-checks every hop); otherwise the SDK follows same-origin ones only. */
  followRedirects?: boolean;
  /** Bound on the handshake (`initialize` / `server/discover`). */
  timeoutMs: number;
  signal?: AbortSignal;
  clientInfo: { name: string; version: string };
  /**
   * Told of the logging messages and resource updates the upstream sends outside a direct
   * request's own stream (its session's standalone stream, or any SDK-path request).
   */
  onnotification?: (method: string, params: Record<string, unknown>) => void;
  /**
   * Legacy Streamable HTTP only: join this existing upstream session (opened by another gateway
   * replica) instead of initialising a new one; the SDK client then skips the handshake. An
   * expired one answers 404 on the first request, as an expired session of our own would.
   */
  session?: { id: string; protocolVersion?: string };
  /** Answers the upstream's server→client requests; each one given declares its capability. */
  answer?: Partial<Record<RelayedMethod, (params: Record<string, unknown>) => Promise<unknown>>>;
  /**
   * Client capabilities declared as given, over the `{}` each answer handler declares: the
   * elicitation modes a relaying connection's callers support, or everything discovery declares
   * (without handlers) to see what a capable client sees.
   */
  capabilities?: Record<string, object>;
  /**
   * Legacy Streamable HTTP only: `tools/call`, `resources/read` and `prompts/get` with a
   * `maxBytes` bound go out as direct POSTs on this keep-alive pool, on the session the SDK
   * client opened ({@link directRequest}); the handshake, lists and everything else stay on the SDK.
   */
  dispatcher?: Dispatcher;
}

export interface UpstreamCallOptions {
  timeout: number;
  maxTotalTimeout?: number;
  signal?: AbortSignal;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** Direct requests: notifications other than progress on this call's own event stream (logging, resource updates). */
  onnotification?: (method: string, params: Record<string, unknown>) => void;
  /** 2026-07-28 only: an `input_required` result is returned as is instead of being fulfilled through `answer`. */
  allowInputRequired?: boolean;
  /** The call's response byte bound; with it (and a `dispatcher`), a legacy Streamable HTTP call is a direct request. */
  maxBytes?: number;
  /** Direct requests: largest event-stream answer in total bytes (see {@link DirectCallOptions.maxStreamBytes}). */
  maxStreamBytes?: number;
  /** Direct requests: whether the call still relays notifications (see {@link DirectCallOptions.relaying}). */
  relaying?: () => boolean;
  /** Direct requests: the meter of notification bytes (see {@link DirectCallOptions.pace}). */
  pace?: (bytes: number) => number;
}

/** `completion/complete` params as the upstream receives them. */
export interface CompleteParams {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
  [key: string]: unknown;
}

/** One connected upstream, whichever era and transport it speaks. */
export interface UpstreamConnection {
  readonly era: UpstreamEra;
  readonly transport: UpstreamTransport;
  /** The revision the server spoke (negotiated or discovered), when it said. */
  readonly protocolVersion: string | undefined;
  readonly serverInfo: unknown;
  readonly capabilities: { tools?: unknown; resources?: unknown; prompts?: unknown };
  /** The upstream's `Mcp-Session-Id` (legacy Streamable HTTP with a stateful upstream), read when asked. */
  sessionId(): string | undefined;
  callTool(
    params: { name: string; arguments: Record<string, unknown> } & Record<string, unknown>,
    opts: UpstreamCallOptions,
  ): Promise<unknown>;
  readResource(params: { uri: string } & Record<string, unknown>, opts: UpstreamCallOptions): Promise<unknown>;
  getPrompt(
    params: { name: string; arguments: Record<string, string> } & Record<string, unknown>,
    opts: UpstreamCallOptions,
  ): Promise<unknown>;
  /** `completion/complete` for one of the upstream's prompts or resource templates (its own name or URI template in `ref`). */
  complete(params: CompleteParams, opts: UpstreamCallOptions): Promise<unknown>;
  /**
   * One request about an upstream's own task. Legacy upstreams (2025-11-25 tasks utility): a
   * task-augmented `tools/call` (answered with a `CreateTaskResult`), `tasks/get`,
   * `tasks/result`, `tasks/cancel`; `session` sends it on that upstream session instead of this
   * connection's own (an upstream's tasks belong to the session that created them; another
   * replica's connection has another one). 2026-07-28 upstreams (tasks extension, stateless):
   * `tools/call`, `tasks/get`, `tasks/update`, `tasks/cancel` declaring the extension, `session`
   * unused. The result is returned as the upstream sent it.
   */
  taskRequest(
    method: UpstreamTaskMethod,
    params: Record<string, unknown>,
    session: string | undefined,
    opts: UpstreamCallOptions,
  ): Promise<Record<string, unknown>>;
  /** `logging/setLevel` on this connection's session (legacy only; a 2026-07-28 upstream has none, so it resolves at once). */
  setLoggingLevel(level: string, opts: UpstreamCallOptions): Promise<void>;
  /** `resources/subscribe` (`on`) or `resources/unsubscribe` on this connection's session (legacy only; a no-op on 2026-07-28, which has neither). */
  subscribeResource(uri: string, on: boolean, opts: UpstreamCallOptions): Promise<void>;
  /** One page of a list, never aggregated by the SDK (paging is {@link listAll}'s, with its loop guard and cap). */
  listPage(
    method: UpstreamListMethod,
    cursor: string | undefined,
    opts: UpstreamCallOptions,
  ): Promise<{ items: Array<Record<string, unknown>>; nextCursor?: string }>;
  close(): Promise<void>;
}
