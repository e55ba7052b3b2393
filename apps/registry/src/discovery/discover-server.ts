import { limitResponseBytes, ResponseTooLargeError, type GuardedFetch } from '@switchboard/net-guard';
import {
  connectUpstream,
  discoveryCapabilities,
  listAll,
  probeCapabilityRequirements,
  type ConnectUpstreamOptions,
  type ListedUpstream,
  type ProbedCapability,
  type UpstreamConnection,
} from '@switchboard/upstream-client';

/**
 * The field of a discovered tool's definition naming the client capabilities it needs (set by
 * discovery, never taken from the upstream); it travels with the approved definition into the
 * tenant document, where the gateway refuses the tool to clients lacking one.
 */
export const REQUIRED_CAPABILITIES_FIELD = 'requiredClientCapabilities';

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
    super(
      `${url} sent a discovery response larger than ${maxBytes} bytes (limit DISCOVERY_PAGE_MAX_BYTES = ${maxBytes}); serve the lists in smaller pages`,
      { cause },
    );
  }
}

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

function connectOptions(o: DiscoverOptions, capabilities: Record<string, object>, spoken?: UpstreamConnection): ConnectUpstreamOptions {
  return {
    url: o.url,
    // The probes speak what the first connection found instead of negotiating again.
    era: spoken ? spoken.era : 'auto',
    transport: spoken ? spoken.transport : o.transport,
    headers: o.headers,
    fetch: o.fetch,
    // Redirects are followed by the guarded fetch, which re-checks every target.
    followRedirects: true,
    timeoutMs: o.timeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
    clientInfo: { name: 'switchboard-registry', version: '0.1.0' },
    capabilities,
  };
}

async function discoverEras(o: DiscoverOptions): Promise<DiscoveryResult> {
  // Declared without answer handlers: a server→client request during discovery is refused.
  const conn = await connectUpstream(connectOptions(o, discoveryCapabilities()));
  let listed: ListedUpstream;
  try {
    listed = await listAll(conn, { timeout: o.timeoutMs, maxTotalTimeout: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  } finally {
    await conn.close().catch(() => undefined);
  }
  let required = new Map<string, ProbedCapability[]>();
  try {
    if (conn.capabilities.tools) required = await probeRequirements(o, conn, listed.tools);
  } catch (err) {
    // Best effort: the items are found; a probe that fails (a server refusing a second session)
    // leaves them ungated. Only the run's own abort (a response over its byte bound) ends discovery.
    if (o.signal?.aborted) throw err;
  }
  return {
    items: itemsOf(listed, required),
    transport: conn.transport,
    era: conn.era,
    protocolVersion: conn.protocolVersion,
    serverInfo: conn.serverInfo,
  };
}

/** See probeCapabilityRequirements: one bare listing, then one per capability only when some tool is gated. */
function probeRequirements(
  o: DiscoverOptions,
  spoken: UpstreamConnection,
  tools: Array<Record<string, unknown>>,
): Promise<Map<string, ProbedCapability[]>> {
  return probeCapabilityRequirements(
    (capabilities) => connectUpstream(connectOptions(o, capabilities, spoken)),
    tools.map((t) => String(t.name)),
    { timeout: o.timeoutMs, maxTotalTimeout: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) },
  );
}

function itemsOf(listed: ListedUpstream, required: ReadonlyMap<string, ProbedCapability[]>): DiscoveredItem[] {
  const item = (kind: DiscoveredItem['kind'], key: unknown, definition: Record<string, unknown>): DiscoveredItem => ({
    kind,
    key: String(key),
    definition,
  });
  const tool = (t: Record<string, unknown>): Record<string, unknown> => {
    // The field is discovery's own: an upstream sending it is overwritten (or it is dropped).
    const { [REQUIRED_CAPABILITIES_FIELD]: _theirs, ...own } = t;
    void _theirs;
    const needs = required.get(String(t.name));
    return needs ? { ...own, [REQUIRED_CAPABILITIES_FIELD]: needs } : own;
  };
  return [
    ...listed.tools.map((t) => item('tool', t.name, tool(t))),
    ...listed.resources.map((r) => item('resource', r.uri, r)),
    ...listed.resourceTemplates.map((r) => item('resource_template', r.uriTemplate, r)),
    ...listed.prompts.map((p) => item('prompt', p.name, p)),
  ];
}
