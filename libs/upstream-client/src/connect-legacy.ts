import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import { stripForbiddenHeaders } from '@switchboard/net-guard';
import { ErrorCode } from '@switchboard/protocol';
import type { Dispatcher } from 'undici';
import { connectOrClose, declared, page, transportInit } from './connect-shared';
import { directRequest } from './direct-request';
import type { DirectCallOptions, DirectSession } from './direct-session';
import { checkObject, checkPromptResult, checkResourceResult, checkToolResult } from './result-checks';
import { UpstreamProtocolError, UpstreamRedirectedError } from './upstream-errors';
import {
  RELAYED_REQUESTS,
  type ConnectUpstreamOptions,
  type RelayedMethod,
  type UpstreamCallOptions,
  type UpstreamConnection,
  type UpstreamListMethod,
  type UpstreamTaskMethod,
  type UpstreamTransport,
} from './upstream-connection';

/**
 * The 1.x SDK client after the `initialize` handshake, over Streamable HTTP or HTTP+SSE. With
 * a dispatcher, Streamable HTTP calls go out as direct requests on the session the client opened.
 */
export async function connectLegacy(o: ConnectUpstreamOptions, kind: UpstreamTransport): Promise<UpstreamConnection> {
  const client = legacyClient(o);
  const url = new URL(o.url);
  const joined = kind === 'streamable-http' && o.session ? { sessionId: o.session.id } : {};
  const transport =
    kind === 'sse'
      ? new SSEClientTransport(url, transportInit(o))
      : new StreamableHTTPClientTransport(url, { ...transportInit(o), ...joined });
  if (transport instanceof StreamableHTTPClientTransport && o.session?.protocolVersion)
    transport.setProtocolVersion(o.session.protocolVersion);
  await connectOrClose(client, transport, o);
  const streamable = transport instanceof StreamableHTTPClientTransport ? transport : undefined;
  const direct = streamable && o.dispatcher ? directSession(o, url, streamable, o.dispatcher) : undefined;
  return {
    era: 'legacy',
    transport: kind,
    // The 1.x Streamable HTTP transport keeps the negotiated revision; the SSE one does not expose it.
    protocolVersion: streamable?.protocolVersion,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities() ?? {},
    sessionId: () => streamable?.sessionId,
    callTool: (params, opts) =>
      directOrSdk(direct, 'tools/call', params, opts, checkToolResult, () => client.callTool(params, undefined, opts)),
    readResource: (params, opts) =>
      directOrSdk(direct, 'resources/read', params, opts, checkResourceResult, () => client.readResource(params, opts)),
    getPrompt: (params, opts) => directOrSdk(direct, 'prompts/get', params, opts, checkPromptResult, () => client.getPrompt(params, opts)),
    // Any well-formed result: the SDK's own schema rejects a whole answer over 100 values, which the gateway cuts instead.
    complete: (params, opts) => client.request({ method: 'completion/complete', params }, ResultSchema, opts),
    taskRequest: (method, params, session, opts) => taskRequest(client, streamable, direct, method, params, session, opts),
    setLoggingLevel: async (level, opts) => {
      await client.setLoggingLevel(level as LoggingLevel, opts);
    },
    subscribeResource: async (uri, on, opts) => {
      await (on ? client.subscribeResource({ uri }, opts) : client.unsubscribeResource({ uri }, opts));
    },
    listPage: (method, cursor, opts) => listPage(client, method, cursor, opts),
    close: () => client.close(),
  };
}

/** The client, answering the upstream's server→client requests and relaying its notifications as the options say. */
function legacyClient(o: ConnectUpstreamOptions): Client {
  const client = new Client(o.clientInfo, { capabilities: declared(o) });
  for (const [method, answer] of Object.entries(o.answer ?? {})) {
    client.setRequestHandler(
      RELAYED_REQUESTS[method as RelayedMethod].schema,
      async (request) => (await answer((request.params ?? {}) as Record<string, unknown>)) as never,
    );
  }
  if (o.onnotification) {
    const relay = o.onnotification;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => relay(n.method, n.params as Record<string, unknown>));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => relay(n.method, n.params as Record<string, unknown>));
  }
  return client;
}

/** A direct request when it can be one; a redirect (followed by the guarded fetch) sends the call through the SDK. */
async function directOrSdk<T>(
  direct: DirectSession | undefined,
  method: string,
  params: Record<string, unknown>,
  opts: UpstreamCallOptions,
  check: (r: Record<string, unknown>) => T,
  sdk: () => Promise<T>,
): Promise<T> {
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
}

/** A task request on this connection's session, or (direct requests only) on the session that created the task. */
async function taskRequest(
  client: Client,
  streamable: StreamableHTTPClientTransport | undefined,
  direct: DirectSession | undefined,
  method: UpstreamTaskMethod,
  params: Record<string, unknown>,
  session: string | undefined,
  opts: UpstreamCallOptions,
): Promise<Record<string, unknown>> {
  if (session === undefined || session === streamable?.sessionId) {
    return directOrSdk(
      direct,
      method,
      params,
      opts,
      checkObject,
      () => client.request({ method, params } as never, ResultSchema, opts) as Promise<Record<string, unknown>>,
    );
  }
  if (!direct || opts.maxBytes === undefined || !opts.signal)
    throw new UpstreamProtocolError(
      `${method} must go to the upstream session that created the task, which this connection cannot address`,
    );
  return checkObject(
    await directRequest({ ...direct, sessionId: () => session }, method, params, { signal: opts.signal, maxBytes: opts.maxBytes }),
  );
}

async function listPage(
  client: Client,
  method: UpstreamListMethod,
  cursor: string | undefined,
  opts: UpstreamCallOptions,
): Promise<{ items: Array<Record<string, unknown>>; nextCursor?: string }> {
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
}

function directSession(
  o: ConnectUpstreamOptions,
  url: URL,
  transport: StreamableHTTPClientTransport,
  dispatcher: Dispatcher,
): DirectSession {
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
