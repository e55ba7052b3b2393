import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { NetGuardError, ResponseTooLargeError } from '@switchboard/net-guard';
import { UpstreamProtocolError, UpstreamResponseBrokenError } from './upstream-errors';

/**
 * Why talking to an upstream failed:
 * - `answer`: it answered with a JSON-RPC error (it is alive);
 * - `refused-url` (the SSRF guard), `too-large`, `broken` (cut mid-way), `closed` (the SDK's
 *   connection closed), `auth` (401/403), `http` (another non-2xx status), `invalid` (not MCP
 *   JSON-RPC), `timeout`, `network` (refused, reset, DNS);
 * - `aborted`: the request's own signal ended it (whoever aborted knows why);
 * - `unknown`: nothing in the error says (a caller decides what that means to it).
 */
export type UpstreamFailure =
  | { kind: 'refused-url'; error: NetGuardError }
  | { kind: 'too-large'; error: ResponseTooLargeError }
  | { kind: 'network'; error: unknown }
  | { kind: 'answer' | 'broken' | 'closed' | 'auth' | 'http' | 'invalid' | 'timeout' | 'aborted' | 'unknown' };

export type UpstreamFailureKind = UpstreamFailure['kind'];

const SDK_CONNECTION_CLOSED = -32000;
const SDK_REQUEST_TIMEOUT = -32001;

/**
 * Classifies an error of an upstream request: the SSRF guard and byte limits anywhere in the
 * `cause` chain (SDK clients wrap fetch errors), then the error's own type or SDK code, and
 * only then the messages in the chain, where a third-party error carries nothing else.
 */
export function classifyUpstreamFailure(err: unknown): UpstreamFailure {
  const chain: unknown[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++, e = (e as { cause?: unknown }).cause) chain.push(e);
  const guard = chain.find((e): e is NetGuardError => e instanceof NetGuardError);
  if (guard) return { kind: 'refused-url', error: guard };
  const big = chain.find((e): e is ResponseTooLargeError => e instanceof ResponseTooLargeError);
  if (big) return { kind: 'too-large', error: big };
  const typed = typedKind(err);
  return typed ? { kind: typed } : messageKind(chain);
}

type TypedKind = Exclude<UpstreamFailureKind, 'refused-url' | 'too-large' | 'network' | 'unknown'>;

/** What the error's type or an SDK's code says; undefined when only a message can tell. */
function typedKind(err: unknown): TypedKind | undefined {
  if (err instanceof UpstreamResponseBrokenError) return 'broken';
  if (err instanceof UpstreamProtocolError) return 'invalid';
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null | undefined;
  if (e?.name === 'TimeoutError') return 'timeout';
  if (err instanceof StreamableHTTPError || (e?.name === 'SseError' && typeof e.code === 'number')) return httpKind(e!.code);
  if (err instanceof McpError || isJsonRpcError(e)) {
    if (e!.code === SDK_REQUEST_TIMEOUT) return 'timeout';
    return e!.code === SDK_CONNECTION_CLOSED && /connection closed/i.test(String(e!.message)) ? 'closed' : 'answer';
  }
  // SDK v2 names its own failures with string codes.
  if (e?.code === 'REQUEST_TIMEOUT') return 'timeout';
  if (e?.code === 'CONNECTION_CLOSED') return 'closed';
  if (e?.code === 'CLIENT_HTTP_AUTHENTICATION' || e?.code === 'CLIENT_HTTP_FORBIDDEN') return 'auth';
  if (e?.name === 'AbortError') return 'aborted';
  return undefined;
}

function httpKind(status: unknown): TypedKind {
  if (status === -1) return 'invalid';
  return status === 401 || status === 403 ? 'auth' : 'http';
}

/** SDK v2 protocol errors carry the numeric JSON-RPC code (its HTTP errors carry none in that range). */
function isJsonRpcError(e: { name?: unknown; code?: unknown } | null | undefined): boolean {
  return !!e && typeof e.code === 'number' && e.code <= -32000 && e.code >= -32768 && e.name !== 'StreamableHTTPError';
}

/** The last resort for errors that are only text: the status, silence, a body that is not JSON, a network code. */
function messageKind(chain: unknown[]): UpstreamFailure {
  const code = (e: unknown) => String((e as { code?: unknown }).code ?? '');
  const text = (e: unknown) => `${String((e as Error).name ?? '')} ${String((e as Error).message ?? '')}`;
  const status = (e: unknown) => (e as { status?: unknown }).status ?? (e as { code?: unknown }).code;
  if (chain.some((e) => status(e) === 401 || status(e) === 403 || /\b(401|403)\b|unauthori[sz]ed|forbidden/i.test(text(e))))
    return { kind: 'auth' };
  if (chain.some((e) => /timed? ?out|TimeoutError|aborted/i.test(text(e)))) return { kind: 'timeout' };
  const network = chain.find((e) => /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|EAI_AGAIN|fetch failed/i.test(`${code(e)} ${text(e)}`));
  if (network) return { kind: 'network', error: chain[chain.length - 1] };
  const top = chain[0] as { name?: unknown } | undefined;
  if (top?.name === 'SyntaxError' || top?.name === 'ZodError' || /unexpected content type|invalid json/i.test(text(top ?? {})))
    return { kind: 'invalid' };
  if (top?.name === 'SseError' || /status code (\d+)|non-200/i.test(text(top ?? {}))) return { kind: 'http' };
  return { kind: 'unknown' };
}

/**
 * The pinned 2026-07-28 connect failed in a way that means "this server does not speak it"
 * (no `server/discover`, an HTTP 4xx other than 401/403, a legacy-shaped answer), so the legacy
 * handshake is worth trying. Silence on HTTP is an outage, not a legacy server.
 */
export function isModernRefusal(err: unknown): boolean {
  return discoveryKind(classifyUpstreamFailure(err).kind) === 'other';
}

/**
 * A failure as discovery reads it: its only abort is its own deadline, a broken body is an
 * outage, and every answer that is not an outage is "not the expected protocol" (`other`).
 */
export function discoveryKind(kind: UpstreamFailureKind): 'refused-url' | 'too-large' | 'auth' | 'timeout' | 'network' | 'other' {
  switch (kind) {
    case 'refused-url':
    case 'too-large':
    case 'auth':
    case 'timeout':
    case 'network':
      return kind;
    case 'aborted':
      return 'timeout';
    case 'broken':
      return 'network';
    default:
      return 'other';
  }
}

/** Streamable HTTP refused in the way a 2024-11-05 HTTP+SSE server refuses it (404/405/400 on POST). */
export function isLegacyRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'number' && code >= 400 && code < 500 && code !== 401 && code !== 403) return true;
  return /HTTP 4(0[045])|Unexpected content type|Error POSTing to endpoint \(HTTP 4/i.test((err as Error)?.message ?? '');
}
