import { subscribe } from 'node:diagnostics_channel';
import { injectTraceContext } from './inject-trace-context';

interface UndiciRequest {
  headers: string | string[];
  addHeader(name: string, value: string): unknown;
}

let installed = false;

const TRACEPARENT_IN_BLOCK = /(?:^|\n)traceparent[ \t]*:/i;

/**
 * Whether undici's request headers (a flat [name, value, …] array, or an `name: value\r\n` block)
 * name a `traceparent`, in any case. Runs on every outgoing request (on the proxied hot path the
 * direct request already carries one), so it allocates nothing and lowercases only 11-character names.
 */
function hasTraceparent(headers: string | string[]): boolean {
  if (typeof headers === 'string') return TRACEPARENT_IN_BLOCK.test(headers);
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!;
    if (name.length === 11 && name.toLowerCase() === 'traceparent') return true;
  }
  return false;
}

/**
 * Adds the active W3C trace context to every request made with Node's built-in `fetch`
 * (which the http instrumentation does not cover): the MCP SDK client (gateway → upstreams,
 * registry discovery), viem (chain-reader → RPC). It listens on undici's
 * `undici:request:create` diagnostics channel, which fires synchronously in the caller's
 * context; a request that already carries a `traceparent` is left alone. Idempotent.
 */
export function propagateFetch(): void {
  if (installed) return;
  installed = true;
  subscribe('undici:request:create', (message) => {
    const request = (message as { request?: UndiciRequest }).request;
    if (!request || typeof request.addHeader !== 'function') return;
    if (hasTraceparent(request.headers)) return;
    const carrier = injectTraceContext({} as Record<string, unknown>);
    for (const [key, value] of Object.entries(carrier)) if (typeof value === 'string') request.addHeader(key, value);
  });
}
