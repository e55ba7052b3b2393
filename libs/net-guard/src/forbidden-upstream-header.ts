/**
 * Headers a tenant may never ask us to send upstream: hop-by-hop and framing headers (they
 * would desynchronise keep-alive connections: `content-length: 0` before a body, or
 * `transfer-encoding` beside `content-length`), and the headers the MCP transports and our
 * telemetry own (a tenant value would break the protocol or forge trace context).
 */
const EXACT = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'http2-settings',
  'content-type',
  'content-encoding',
  'accept',
  'accept-encoding',
  'last-event-id',
  'traceparent',
  'tracestate',
  'baggage',
]);
const PREFIXES = ['proxy-', 'mcp-', 'sec-', ':'];

/**
 * Why `name` may not be a tenant-supplied upstream header (undefined when it may): refused at
 * registration (400 naming the header) and stripped again at send time.
 */
export function forbiddenUpstreamHeader(name: string): string | undefined {
  const h = name.trim().toLowerCase();
  if (EXACT.has(h)) return `${h} is a hop-by-hop, framing or protocol header the gateway sets itself`;
  const prefix = PREFIXES.find((p) => h.startsWith(p));
  if (prefix) return `${prefix}* headers are reserved for the proxy and the MCP transport`;
  return undefined;
}
