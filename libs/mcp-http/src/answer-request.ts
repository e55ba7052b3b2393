import {
  ErrorCode,
  McpError,
  classifyRequest,
  declaresMcpApps,
  encodeError,
  isMethodOfEra,
  resolveSurfaceId,
  type JsonRpcRequest,
  type RequestContext,
} from '@switchboard/protocol';
import type { DispatchInput } from './dispatch-input';
import { calledTarget, type CalledTarget } from './called-target';
import { answerLength, type EncodedAnswer } from './encoded-answer';
import { mintLegacySession, readLegacySession } from './legacy-session';
import type { EdgeCall } from './edge-call';
import type { McpRequestObservation } from './mcp-observer';
import type { ResponseChannel } from './response-channel';
import { enableResume } from './resume-stream';
import { TASK_METHODS } from './task-manager';

/** Methods answered from precompiled bytes or constant results: nothing to cancel or time out. */
const PRECOMPILED_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'initialize',
  'server/discover',
  'ping',
]);
const NEVER_ABORTED = new AbortController().signal;
/** Stands in for the classification until `classifyAndDispatch` sets it (first thing it does). */
const UNCLASSIFIED = undefined as unknown as RequestContext;

/** One answered JSON-RPC request: its encoded response, its length in bytes, and HTTP status. */
export interface Answer {
  body: EncodedAnswer;
  length: number;
  status: number;
}

/**
 * Step 5: answers one JSON-RPC request — observed (span, metrics, usage), bounded in time
 * when it can wait on anything, classified, admitted, dispatched. `channel` is the request's
 * own response stream (absent for batch members). Wire errors become their JSON-RPC error
 * with their HTTP status; anything else an internal error (logged).
 */
export async function answerRequest(call: EdgeCall, message: JsonRpcRequest, channel: ResponseChannel | undefined): Promise<Answer> {
  const edge = call.edge;
  // Lists answer from precompiled bytes and never wait on anything: they skip the timer,
  // the abort controller and the close listener (the hot path stays allocation-light).
  if (PRECOMPILED_METHODS.has(message.method)) return observed(call, message, channel, NEVER_ABORTED);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`call exceeded ${edge.callTimeoutMs} ms`)), edge.callTimeoutMs);
  // Watch the response, not the request: Node emits the request's `close` as soon as its
  // body has been read, which would abort every call that outlives the upload.
  const res = call.res;
  const onClose = () => {
    // A stored stream's client may come back with Last-Event-ID: the call goes on (bounded by its timeout).
    if (!res.writableFinished && !channel?.isResumable) abort.abort(new Error('client closed the connection'));
  };
  res.once('close', onClose);
  try {
    return await observed(call, message, channel, abort.signal);
  } finally {
    clearTimeout(timer);
    res.off('close', onClose);
  }
}

async function observed(
  call: EdgeCall,
  message: JsonRpcRequest,
  channel: ResponseChannel | undefined,
  signal: AbortSignal,
): Promise<Answer> {
  const { target } = call;
  const called = calledTarget(target.catalog, message.method, message.params);
  const observation = call.edge.policy.observe?.onRequest({
    tenantId: target.tenantId,
    method: message.method,
    // A label: tool and prompt names only (a resource URI is unbounded).
    name: message.method === 'resources/read' ? undefined : called.name,
    called,
    headers: call.headers,
    auth: call.auth,
    clientIp: call.ip,
    params: message.params,
    bytesIn: call.body.length,
    requestId: message.id,
  });
  let errorCode: number | undefined;
  let status = 200;
  let body: EncodedAnswer;
  try {
    // Filled in as the request is classified: the one object the dispatcher is handed.
    const input: DispatchInput = {
      message,
      context: UNCLASSIFIED,
      target,
      surfaceId: '',
      mcpApps: false,
      sink: channel,
      signal,
      auth: call.auth,
      headers: call.headers,
      toolErrors: observation,
    };
    body = await classifyAndDispatch(call, input, channel, called, observation);
  } catch (err) {
    if (err instanceof McpError) {
      errorCode = err.code;
      status = err.httpStatus;
      body = encodeError(message.id, err);
    } else {
      errorCode = ErrorCode.InternalError;
      call.log.error({ err, method: message.method }, 'request failed');
      body = encodeError(message.id, new McpError(ErrorCode.InternalError, 'Internal error'));
    }
  }
  // Measured once: the usage record and the response's Content-Length both take it.
  const length = answerLength(body);
  observation?.end({ errorCode, httpStatus: status, body, bytes: length });
  return { body, length, status };
}

async function classifyAndDispatch(
  call: EdgeCall,
  input: DispatchInput,
  channel: ResponseChannel | undefined,
  called: CalledTarget,
  observation: McpRequestObservation | undefined,
): Promise<EncodedAnswer> {
  const { edge, target, auth } = call;
  const message = input.message;
  const context = (input.context = classifyRequest(message, call.headers));
  if (context.era === 'legacy') {
    applyLegacySession(call, message, context, channel);
    if (channel) enableResume(channel, edge, target.tenantId, auth);
  }
  // The tasks extension's methods join 2026-07-28 (the dispatcher gates them on the declared extension).
  if (!isMethodOfEra(message.method, context.era) && !(context.era === 'modern' && TASK_METHODS.has(message.method))) {
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Method not found: ${message.method} (not part of protocol ${context.protocolVersion})`,
      undefined,
      context.era === 'modern' ? 404 : 200,
    );
  }
  const policy = edge.policy;
  if (policy.admit) {
    // Awaited only when it is a promise: an admission decided at once (a held lease) costs no microtask.
    const admitted = policy.admit(call, target, { message, era: context.era, auth, called });
    const refusal = admitted instanceof Promise ? await admitted : admitted;
    if (refusal) {
      for (const name in refusal.headers) call.res.setHeader(name, refusal.headers[name]!);
      throw refusal.error;
    }
  }
  const surfaceId = (input.surfaceId = resolveSurfaceId(
    {
      oauthClientId: auth?.clientId,
      clientInfoName: context.clientInfo?.name,
      origin: call.header('origin'),
      userAgent: call.header('user-agent'),
    },
    target.surfaceRules,
  ));
  // Property reads only: a client that declares no extension allocates nothing here.
  input.mcpApps = declaresMcpApps(context.clientCapabilities);
  if (!observation) return edge.dispatcher.dispatch(input);
  observation.classified({ era: context.era, protocolVersion: context.protocolVersion, surfaceId });
  // Only calls can make outgoing requests whose spans need this one as their parent.
  return input.signal !== NEVER_ABORTED ? observation.run(() => edge.dispatcher.dispatch(input)) : edge.dispatcher.dispatch(input);
}

/**
 * Legacy sessions without server state: `initialize` gets a sealed `Mcp-Session-Id`
 * holding the client's capabilities; later requests that carry it get them back (so a
 * call knows it may send elicitation / sampling / roots requests). An id this server did
 * not issue, or another tenant's, is 404 (the spec's "session not found": re-initialize).
 */
function applyLegacySession(call: EdgeCall, message: JsonRpcRequest, context: RequestContext, channel: ResponseChannel | undefined): void {
  const { edge, target } = call;
  if (!edge.sessions) return;
  if (message.method === 'initialize') {
    channel?.setHeader(
      'mcp-session-id',
      mintLegacySession(edge.sealer, {
        tenantId: target.tenantId,
        protocolVersion: context.protocolVersion,
        capabilities: context.clientCapabilities ?? {},
      }),
    );
    return;
  }
  const sessionId = call.header('mcp-session-id');
  if (sessionId === undefined) return;
  const session = readLegacySession(edge.sealer, target.tenantId, sessionId);
  if (session === 'expired')
    throw new McpError(
      ErrorCode.InvalidRequest,
      'Session not found: this Mcp-Session-Id has expired (send initialize again)',
      undefined,
      404,
    );
  if (session === 'invalid')
    throw new McpError(
      ErrorCode.InvalidRequest,
      'Session not found: this Mcp-Session-Id was not issued for this endpoint (send initialize again)',
      undefined,
      404,
    );
  if (context.clientCapabilities === undefined) context.clientCapabilities = session.capabilities;
}
