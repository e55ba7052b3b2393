import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResultSchema,
  ResourceUpdatedNotificationSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import { stripForbiddenHeaders, type GuardedFetch } from '@switchboard/net-guard';
import { ErrorCode, isJsonObject, LATEST_MODERN_VERSION } from '@switchboard/protocol';
import type { Dispatcher } from 'undici';
import { directRequest, type DirectCallOptions, type DirectSession } from './direct-request';
import { UpstreamProtocolError, UpstreamRedirectedError } from './upstream-errors';
import { isLegacyRefusal, isModernRefusal } from './upstream-failure';
import { modernTaskRequest } from './modern-task-request';

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
  callTool(params: { name: string; arguments: Record<string, unknown> } & Record<string, unknown>, opts: UpstreamCallOptions): Promise<unknown>;
  readResource(params: { uri: string } & Record<string, unknown>, opts: UpstreamCallOptions): Promise<unknown>;
  getPrompt(params: { name: string; arguments: Record<string, string> } & Record<string, unknown>, opts: UpstreamCallOptions): Promise<unknown>;
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
  taskRequest(method: UpstreamTaskMethod, params: Record<string, unknown>, session: string | undefined, opts: UpstreamCallOptions): Promise<Record<string, unknown>>;
  /** `logging/setLevel` on this connection's session (legacy only; a 2026-07-28 upstream has none, so it resolves at once). */
  setLoggingLevel(level: string, opts: UpstreamCallOptions): Promise<void>;
  /** `resources/subscribe` (`on`) or `resources/unsubscribe` on this connection's session (legacy only; a no-op on 2026-07-28, which has neither). */
  subscribeResource(uri: string, on: boolean, opts: UpstreamCallOptions): Promise<void>;
  /** One page of a list, never aggregated by the SDK (paging is {@link listAll}'s, with its loop guard and cap). */
  listPage(method: UpstreamListMethod, cursor: string | undefined, opts: UpstreamCallOptions): Promise<{ items: Array<Record<string, unknown>>; nextCursor?: string }>;
  close(): Promise<void>;
}

const ITEMS: Record<UpstreamListMethod, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

/**
 * Connects to an upstream MCP server with the official SDK clients: SDK v2 pinned to
 * 2026-07-28 for the modern era, SDK 1.x (`initialize`) over Streamable HTTP or HTTP+SSE for
 * the legacy one. With `era: 'auto'` a server that does not speak 2026-07-28 (no
 * `server/discover`, a legacy-shaped answer) is retried with the handshake, never after a
 * refused URL, a rejected credential, a timeout or a network failure (it would fail the same
 * way and only double the wait).
 */
export async function connectUpstream(o: ConnectUpstreamOptions): Promise<UpstreamConnection> {
  if (o.era === 'modern') return connectModern(o);
  if (o.transport === 'sse') return connectLegacy(o, 'sse');
  if (o.era === 'auto') {
    try {
      return await connectModern(o);
    } catch (err) {
      if (!isModernRefusal(err)) throw err;
    }
  }
  try {
    return await connectLegacy(o, 'streamable-http');
  } catch (err) {
    if (o.transport === 'auto' && isLegacyRefusal(err)) return connectLegacy(o, 'sse');
    throw err;
  }
}

function transportInit(o: ConnectUpstreamOptions): { requestInit: RequestInit; fetch?: GuardedFetch; redirectPolicy?: 'follow' } {
  return {
    requestInit: { headers: stripForbiddenHeaders(o.headers) },
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.followRedirects ? { redirectPolicy: 'follow' as const } : {}),
  };
}

function declared(o: ConnectUpstreamOptions): Record<string, object> {
  return { ...Object.fromEntries(Object.keys(o.answer ?? {}).map((m) => [RELAYED_REQUESTS[m as RelayedMethod].capability, {}])), ...o.capabilities };
}

async function connectLegacy(o: ConnectUpstreamOptions, kind: UpstreamTransport): Promise<UpstreamConnection> {
  const client = new Client(o.clientInfo, { capabilities: declared(o) });
  for (const [method, answer] of Object.entries(o.answer ?? {})) {
    client.setRequestHandler(RELAYED_REQUESTS[method as RelayedMethod].schema, async (request) => (await answer((request.params ?? {}) as Record<string, unknown>)) as never);
  }
  if (o.onnotification) {
    const relay = o.onnotification;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => relay(n.method, n.params as Record<string, unknown>));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => relay(n.method, n.params as Record<string, unknown>));
  }
  const url = new URL(o.url);
  const joined = kind === 'streamable-http' && o.session ? { sessionId: o.session.id } : {};
  const transport = kind === 'sse' ? new SSEClientTransport(url, transportInit(o)) : new StreamableHTTPClientTransport(url, { ...transportInit(o), ...joined });
  if (transport instanceof StreamableHTTPClientTransport && o.session?.protocolVersion) transport.setProtocolVersion(o.session.protocolVersion);
  await connectOrClose(client, transport, o);
  const direct = transport instanceof StreamableHTTPClientTransport && o.dispatcher ? directSession(o, url, transport, o.dispatcher) : undefined;
  /** A direct request when it can be one; a redirect (followed by the guarded fetch) sends the call through the SDK. */
  const call = async <T>(method: string, params: Record<string, unknown>, opts: UpstreamCallOptions, check: (r: Record<string, unknown>) => T, sdk: () => Promise<T>): Promise<T> => {
    if (!direct || opts.maxBytes === undefined || !opts.signal) return sdk();
    try {
      const bounds: Pick<DirectCallOptions, 'maxStreamBytes' | 'relaying' | 'pace'> = {};
      if (opts.maxStreamBytes !== undefined) bounds.maxStreamBytes = opts.maxStreamBytes;
      if (opts.relaying) bounds.relaying = opts.relaying;
      if (opts.pace) bounds.pace = opts.pace;
      return check(
        await directRequest(direct, method, params, {
          signal: opts.signal,
          maxBytes: opts.maxBytes,
          ...(opts.onprogress ? { onprogress: opts.onprogress } : {}),
          ...(opts.onnotification ? { onnotification: opts.onnotification } : {}),
          ...bounds,
          ...traceHeaders(params),
        }),
      );
    } catch (err) {
      if (err instanceof UpstreamRedirectedError) return sdk();
      throw err;
    }
  };
  return {
    era: 'legacy',
    transport: kind,
    // The 1.x Streamable HTTP transport keeps the negotiated revision; the SSE one does not expose it.
    protocolVersion: (transport as { protocolVersion?: string }).protocolVersion,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities() ?? {},
    sessionId: () => (transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined),
    callTool: (params, opts) => call('tools/call', params, opts, checkToolResult, () => client.callTool(params, undefined, opts)),
    readResource: (params, opts) => call('resources/read', params, opts, checkResourceResult, () => client.readResource(params, opts)),
    getPrompt: (params, opts) => call('prompts/get', params, opts, checkPromptResult, () => client.getPrompt(params, opts)),
    // Any well-formed result: the SDK's own schema rejects a whole answer over 100 values, which the gateway cuts instead.
    complete: (params, opts) => client.request({ method: 'completion/complete', params }, ResultSchema, opts),
    taskRequest: async (method, params, session, opts) => {
      const own = transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
      if (session === undefined || session === own) return call(method, params, opts, checkObject, () => client.request({ method, params } as never, ResultSchema, opts) as Promise<Record<string, unknown>>);
      // Another connection's session: only a direct request can name it.
      if (!direct || opts.maxBytes === undefined || !opts.signal) throw new UpstreamProtocolError(`${method} must go to the upstream session that created the task, which this connection cannot address`);
      return checkObject(await directRequest({ ...direct, sessionId: () => session }, method, params, { signal: opts.signal, maxBytes: opts.maxBytes }));
    },
    setLoggingLevel: async (level, opts) => {
      await client.setLoggingLevel(level as LoggingLevel, opts);
    },
    subscribeResource: async (uri, on, opts) => {
      await (on ? client.subscribeResource({ uri }, opts) : client.unsubscribeResource({ uri }, opts));
    },
    listPage: async (method, cursor, opts) => {
      const params = cursor === undefined ? {} : { cursor };
      const res: Record<string, unknown> =
        method === 'tools/list'
          ? await client.listTools(params, opts)
          : method === 'resources/list'
            ? await client.listResources(params, opts)
            : method === 'resources/templates/list'
              ? await client.listResourceTemplates(params, opts)
              : await client.listPrompts(params, opts);
      return page(res, method);
    },
    close: () => client.close(),
  };
}

function directSession(o: ConnectUpstreamOptions, url: URL, transport: StreamableHTTPClientTransport, dispatcher: Dispatcher): DirectSession {
  return {
    url,
    headers: stripForbiddenHeaders(o.headers) as Record<string, string>,
    sessionId: () => transport.sessionId,
    protocolVersion: () => transport.protocolVersion,
    dispatcher,
    answer: async (method, params) => {
      const relayed = Object.hasOwn(RELAYED_REQUESTS, method) ? RELAYED_REQUESTS[method as RelayedMethod] : undefined;
      const answer = relayed ? o.answer?.[method as RelayedMethod] : undefined;
      if (!relayed || !answer) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      const parsed = relayed.schema.safeParse({ method, params });
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid ${method} request: ${parsed.error.message.slice(0, 200)}`);
      return answer(params);
    },
  };
}

/** The trace context the pool put in `params._meta` also travels as W3C headers (as the SDK's instrumented fetch sends it). */
function traceHeaders(params: Record<string, unknown>): { headers?: Record<string, string> } {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (typeof meta?.traceparent !== 'string') return {};
  return { headers: { traceparent: meta.traceparent, ...(typeof meta.tracestate === 'string' ? { tracestate: meta.tracestate } : {}) } };
}

const objects = (v: unknown): boolean => Array.isArray(v) && v.every(isJsonObject);

/** The shape the SDK's result schemas insist on, checked without building a validator per call. */
function checkToolResult(r: Record<string, unknown>): Record<string, unknown> {
  if (r.content === undefined) return { ...r, content: [] };
  if (!objects(r.content) || !(r.content as Array<Record<string, unknown>>).every((c) => typeof c.type === 'string')) throw new UpstreamProtocolError('the tools/call result has a malformed content array');
  if (r.isError !== undefined && typeof r.isError !== 'boolean') throw new UpstreamProtocolError('the tools/call result has a non-boolean isError');
  if (r.structuredContent !== undefined && !isJsonObject(r.structuredContent)) throw new UpstreamProtocolError('the tools/call result has a structuredContent that is not an object');
  return r;
}

function checkObject(r: Record<string, unknown>): Record<string, unknown> {
  if (!isJsonObject(r)) throw new UpstreamProtocolError('the result is not an object');
  return r;
}

function checkResourceResult(r: Record<string, unknown>): Record<string, unknown> {
  if (!objects(r.contents) || !(r.contents as Array<Record<string, unknown>>).every((c) => typeof c.uri === 'string')) throw new UpstreamProtocolError('the resources/read result has a malformed contents array');
  return r;
}

function checkPromptResult(r: Record<string, unknown>): Record<string, unknown> {
  if (!objects(r.messages)) throw new UpstreamProtocolError('the prompts/get result has a malformed messages array');
  return r;
}

/** A Standard Schema taking any result as is (the v2 client validates spec results by method otherwise; see `complete`). */
const ANY_RESULT = { '~standard': { version: 1, vendor: 'switchboard', validate: (value: unknown) => ({ value }) } } as const;

type ModernSdk = typeof import('@modelcontextprotocol/client');
let modernSdk: ModernSdk | undefined;

/**
 * The SDK v2 client loads when the first 2026-07-28 upstream connects: a gateway whose
 * tenants all run legacy servers does not hold its ~4 MB of code and schemas.
 */
function loadModernSdk(): ModernSdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load, see above
  return (modernSdk ??= require('@modelcontextprotocol/client') as ModernSdk);
}

async function connectModern(o: ConnectUpstreamOptions): Promise<UpstreamConnection> {
  const { Client: ModernClient, StreamableHTTPClientTransport: ModernTransport } = loadModernSdk();
  const client = new ModernClient(o.clientInfo, { versionNegotiation: { mode: { pin: LATEST_MODERN_VERSION } }, capabilities: declared(o) });
  for (const [method, answer] of Object.entries(o.answer ?? {})) {
    client.setRequestHandler(method as RelayedMethod, async (request: { params?: unknown }) => (await answer((request.params ?? {}) as Record<string, unknown>)) as never);
  }
  const transport = new ModernTransport(new URL(o.url), transportInit(o));
  await connectOrClose(client, transport, o);
  return {
    era: 'modern',
    transport: 'streamable-http',
    protocolVersion: client.getNegotiatedProtocolVersion() ?? LATEST_MODERN_VERSION,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities() ?? {},
    sessionId: () => undefined,
    callTool: (params, opts) => client.callTool(params, opts),
    readResource: (params, opts) => client.readResource(params, opts),
    getPrompt: (params, opts) => client.getPrompt(params, opts),
    complete: (params, opts) => client.request({ method: 'completion/complete', params }, ANY_RESULT, opts),
    // The tasks extension (SEP-2663): declared on these requests only, never on plain calls.
    taskRequest: (method, params, _session, opts) =>
      method === 'tasks/result'
        ? Promise.reject(new McpError(ErrorCode.MethodNotFound, 'tasks/result does not exist in the 2026-07-28 tasks extension'))
        : modernTaskRequest({ url: o.url, ...(o.headers ? { headers: o.headers } : {}), ...(o.fetch ? { fetch: o.fetch } : {}), clientInfo: o.clientInfo, capabilities: declared(o) }, method, params, opts),
    setLoggingLevel: async () => undefined,
    subscribeResource: async () => undefined,
    // `request`, not `listTools()`: without a cursor the v2 client walks and caches every page itself.
    listPage: async (method, cursor, opts) => page((await client.request({ method, params: cursor === undefined ? {} : { cursor } }, opts)) as Record<string, unknown>, method),
    close: () => client.close(),
  };
}

/** The handshake, bounded by the options' timeout and signal; a failed one leaves nothing open. */
async function connectOrClose<T>(client: { connect(t: T, opts: { timeout: number; signal?: AbortSignal }): Promise<void>; close(): Promise<void> }, transport: T, o: ConnectUpstreamOptions): Promise<void> {
  try {
    await client.connect(transport, { timeout: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}

function page(res: Record<string, unknown>, method: UpstreamListMethod): { items: Array<Record<string, unknown>>; nextCursor?: string } {
  const items = res[ITEMS[method]];
  const next = res.nextCursor;
  return { items: Array.isArray(items) ? (items as Array<Record<string, unknown>>) : [], ...(typeof next === 'string' ? { nextCursor: next } : {}) };
}
