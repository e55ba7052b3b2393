import { subscribe } from 'node:diagnostics_channel';
import { injectTraceContext } from './inject-trace-context';

interface UndiciRequest {
  headers: string | string[];
  addHeader(name: string, value: string): unknown;
}

let installed = false;

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
    const existing = Array.isArray(request.headers) ? request.headers.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()) : request.headers.toLowerCase();
    if (existing.includes('traceparent')) return;
    const carrier = injectTraceContext({} as Record<string, unknown>);
    for (const [key, value] of Object.entries(carrier)) if (typeof value === 'string') request.addHeader(key, value);
  });
}
