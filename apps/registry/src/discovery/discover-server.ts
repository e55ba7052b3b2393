import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { limitResponseBytes, ResponseTooLargeError, type GuardedFetch } from '@switchboard/net-guard';
import { upstreamFailure } from './upstream-failure';

/** One discovered item: its kind, its upstream key (name, URI or URI template) and raw definition. */
export interface DiscoveredItem {
  kind: 'tool' | 'resource' | 'resource_template' | 'prompt';
  key: string;
  definition: Record<string, unknown>;
}

export interface DiscoverOptions {
  url: string;
  transport: 'auto' | 'streamable-http' | 'sse';
  headers: Record<string, string>;
  fetch: GuardedFetch;
  timeoutMs: number;
  /** Largest response (one list page, or one server-sent event) in bytes; default DISCOVERY_PAGE_MAX_BYTES. */
  maxPageBytes?: number;
  /** Set by `discoverServer`: aborts every request of the run when a page crosses its bound. */
  signal?: AbortSignal;
}

const MAX_PAGES = 200;

/** Default bound on one discovery response (a list page or one SSE event): 4 MiB, as the gateway's upstream response bound. */
export const DISCOVERY_PAGE_MAX_BYTES = 4 * 1024 * 1024;

/** A discovery page that crossed its byte bound; the message names the upstream and the limit. */
export class DiscoveryPageTooLargeError extends Error {
  override readonly name = 'DiscoveryPageTooLargeError';
  constructor(
    readonly url: string,
    readonly maxBytes: number,
    cause: ResponseTooLargeError,
  ) {
    super(`${url} sent a discovery response larger than ${maxBytes} bytes (limit DISCOVERY_PAGE_MAX_BYTES = ${maxBytes}); serve the lists in smaller pages`, { cause });
  }
}

/** The protocol revision the modern path pins (stateless, `server/discover`, per-request `_meta`). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** What one discovery found and how the server spoke. */
export interface DiscoveryResult {
  items: DiscoveredItem[];
  transport: 'streamable-http' | 'sse';
  /** `modern`: 2026-07-28 (`server/discover`, stateless); `legacy`: the 2025-and-earlier `initialize` handshake. */
  era: 'modern' | 'legacy';
  /** The revision the server spoke (negotiated or discovered), when it said. */
  protocolVersion: string | undefined;
  serverInfo: unknown;
}

/** The calls discovery makes, common to the SDK 1.x client and the 2026-07-28 (SDK v2) client. */
interface ListingClient {
  getServerCapabilities(): { tools?: unknown; resources?: unknown; prompts?: unknown } | undefined;
  getServerVersion(): unknown;
  listTools(params: { cursor?: string }, opts: RequestOpts): Promise<{ tools: Array<{ name: string }>; nextCursor?: string }>;
  listResources(params: { cursor?: string }, opts: RequestOpts): Promise<{ resources: Array<{ uri: string }>; nextCursor?: string }>;
  listResourceTemplates(params: { cursor?: string }, opts: RequestOpts): Promise<{ resourceTemplates: Array<{ uriTemplate: string }>; nextCursor?: string }>;
  listPrompts(params: { cursor?: string }, opts: RequestOpts): Promise<{ prompts: Array<{ name: string }>; nextCursor?: string }>;
}
type RequestOpts = { timeout: number; maxTotalTimeout: number; signal?: AbortSignal };

function requestOpts(o: DiscoverOptions): RequestOpts {
  return { timeout: o.timeoutMs, maxTotalTimeout: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) };
}

/**
 * Lists every tool, resource, resource template and prompt of an upstream MCP server,
 * following every page. With `auto` or `streamable-http`, the 2026-07-28 client (SDK v2,
 * pinned: `server/discover` then stateless requests) goes first; a server that does not
 * speak it falls back to the SDK 1.x Streamable HTTP client (`initialize`, up to
 * 2025-11-25), and with `auto` a server that refuses that with a 4xx (a 2024-11-05
 * HTTP+SSE server) is retried over the legacy SSE transport. All requests go through the
 * SSRF-guarded fetch; a refused URL or a credential the server rejects ends discovery at once.
 */
export async function discoverServer(input: DiscoverOptions): Promise<DiscoveryResult> {
  // Every response of the run is counted while it streams: past the bound the request is cut
  // off and the whole run stops at once (an SSE answer would otherwise wait for its timeout).
  const abort = new AbortController();
  const maxBytes = input.maxPageBytes ?? DISCOVERY_PAGE_MAX_BYTES;
  const options: DiscoverOptions = {
    ...input,
    fetch: limitResponseBytes(input.fetch, () => ({ maxBytes, onExceeded: (err) => abort.abort(err) })),
    signal: abort.signal,
  };
  try {
    return await discoverEras(options);
  } catch (err) {
    const big = abort.signal.aborted ? abort.signal.reason : err;
    if (big instanceof ResponseTooLargeError) throw new DiscoveryPageTooLargeError(input.url, maxBytes, big);
    throw err;
  }
}

async function discoverEras(options: DiscoverOptions): Promise<DiscoveryResult> {
  if (options.transport === 'sse') return { ...(await listAll(legacyClient(), sseTransport(options), options)), transport: 'sse', era: 'legacy' };
  try {
    return { ...(await listModern(options)), transport: 'streamable-http', era: 'modern' };
  } catch (err) {
    if (!isModernRefusal(err)) throw err;
  }
  try {
    return { ...(await listAll(legacyClient(), streamableTransport(options), options)), transport: 'streamable-http', era: 'legacy' };
  } catch (err) {
    if (options.transport === 'auto' && isLegacyRefusal(err)) {
      return { ...(await listAll(legacyClient(), sseTransport(options), options)), transport: 'sse', era: 'legacy' };
    }
    throw err;
  }
}

function legacyClient(): Client {
  return new Client({ name: 'switchboard-registry', version: '0.1.0' });
}

/** The 2026-07-28 path: connect pinned to the modern revision (no `initialize`), then list. */
async function listModern(o: DiscoverOptions): Promise<Omit<DiscoveryResult, 'transport' | 'era'>> {
  const client = new ModernClient(
    { name: 'switchboard-registry', version: '0.1.0' },
    { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } }, listMaxPages: MAX_PAGES },
  );
  // `follow`: redirects are followed by the guarded fetch, which re-checks every target.
  const transport = new ModernTransport(new URL(o.url), { requestInit: { headers: o.headers }, fetch: o.fetch, redirectPolicy: 'follow' });
  const opts = requestOpts(o);
  await client.connect(transport, opts);
  try {
    const result = await listWith(client as unknown as ListingClient, o);
    return { ...result, protocolVersion: client.getNegotiatedProtocolVersion() ?? MODERN_PROTOCOL_VERSION };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * The pinned connect failed in a way that means "this server does not speak 2026-07-28"
 * (no `server/discover`, no overlap, an HTTP 4xx other than 401/403, a legacy-shaped answer),
 * so the 1.x path is worth trying. Not for: a refused URL (SSRF guard), a rejected credential,
 * a timeout or a network failure (the 1.x path would fail the same way and only double the wait).
 */
function isModernRefusal(err: unknown): boolean {
  // Silence on HTTP is an outage, not a legacy server (those answer an unknown method with an error).
  return upstreamFailure(err).kind === 'other';
}

function streamableTransport(o: DiscoverOptions): Transport {
  // `follow`: redirects are followed by the guarded fetch, which re-checks every target.
  return new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers: o.headers }, fetch: o.fetch, redirectPolicy: 'follow' });
}

function sseTransport(o: DiscoverOptions): Transport {
  return new SSEClientTransport(new URL(o.url), { requestInit: { headers: o.headers }, fetch: o.fetch, redirectPolicy: 'follow' });
}

/** Streamable HTTP refused in the way a 2024-11-05 server refuses it (404/405/400 on POST). */
function isLegacyRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'number' && code >= 400 && code < 500 && code !== 401 && code !== 403) return true;
  return /HTTP 4(0[045])|Unexpected content type|Error POSTing to endpoint \(HTTP 4/i.test((err as Error)?.message ?? '');
}

async function listAll(client: Client, transport: Transport, o: DiscoverOptions): Promise<Omit<DiscoveryResult, 'transport' | 'era'>> {
  const opts = requestOpts(o);
  await client.connect(transport, opts);
  try {
    const result = await listWith(client as unknown as ListingClient, o);
    // The 1.x Streamable HTTP transport keeps the negotiated revision; the SSE one does not expose it.
    return { ...result, protocolVersion: (transport as { protocolVersion?: string }).protocolVersion };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Walks every list the server's capabilities announce, page by page (bounded, loop-safe). */
async function listWith(client: ListingClient, o: DiscoverOptions): Promise<{ items: DiscoveredItem[]; serverInfo: unknown }> {
  const opts = requestOpts(o);
  const caps = client.getServerCapabilities() ?? {};
  const items: DiscoveredItem[] = [];
  const pages = async <T>(fetchPage: (cursor?: string) => Promise<{ list: T[]; next?: string }>, add: (t: T) => void) => {
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await fetchPage(cursor);
      res.list.forEach(add);
      if (!res.next || seen.has(res.next)) return;
      seen.add(res.next);
      cursor = res.next;
    }
  };
  const c = (cursor?: string) => (cursor ? { cursor } : {});
  if (caps.tools) {
    await pages(async (cur) => {
      const r = await client.listTools(c(cur), opts);
      return { list: r.tools, next: r.nextCursor };
    }, (t) => items.push({ kind: 'tool', key: t.name, definition: t as Record<string, unknown> }));
  }
  if (caps.resources) {
    await pages(async (cur) => {
      const r = await client.listResources(c(cur), opts);
      return { list: r.resources, next: r.nextCursor };
    }, (r) => items.push({ kind: 'resource', key: r.uri, definition: r as Record<string, unknown> }));
    await pages(async (cur) => {
      const r = await client.listResourceTemplates(c(cur), opts);
      return { list: r.resourceTemplates, next: r.nextCursor };
    }, (r) => items.push({ kind: 'resource_template', key: r.uriTemplate, definition: r as Record<string, unknown> })).catch(() => undefined);
  }
  if (caps.prompts) {
    await pages(async (cur) => {
      const r = await client.listPrompts(c(cur), opts);
      return { list: r.prompts, next: r.nextCursor };
    }, (p) => items.push({ kind: 'prompt', key: p.name, definition: p as Record<string, unknown> }));
  }
  return { items, serverInfo: client.getServerVersion() };
}
