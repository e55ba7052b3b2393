import { injectTraceContext } from './inject-trace-context';

type Fetch = typeof fetch;

/**
 * A `fetch` that adds the active W3C trace context to every request's headers: hand it to
 * the MCP SDK client transport (`new StreamableHTTPClientTransport(url, { fetch: tracedFetch() })`)
 * so upstream servers continue the gateway's trace. Node's fetch is not covered by the http
 * instrumentation, hence this wrapper.
 */
export function tracedFetch(base: Fetch = fetch): Fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    injectTraceContext(headers);
    return base(input, { ...init, headers });
  };
}
