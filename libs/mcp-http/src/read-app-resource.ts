import type { CompiledCatalog, Route } from '@switchboard/catalog';
import type { DispatchInput } from './dispatch-input';
import type { InvokeContext } from './invoke-context';
import type { UpstreamInvoker } from './upstream-invoker';

// MCP Apps reads (docs/mcp-apps.md): a `ui://` resource is read only by a client that declared
// the extension (or on a surface that publishes apps to everyone), and an upstream server's
// namespaced URI goes back to that server as its own URI.

/** Whether this request may see `ui://` resources. */
export function appsVisible(input: DispatchInput, catalog: CompiledCatalog): boolean {
  return input.mcpApps === true || catalog.showsApps(input.surfaceId);
}

/**
 * Reads a listed `ui://` resource from its server under the server's own URI (`upstreamName`)
 * and answers under the URI the client asked for, so the client never sees another server's
 * namespace (or the upstream's un-namespaced one).
 */
export async function readUpstreamApp(
  upstream: UpstreamInvoker,
  route: Extract<Route, { kind: 'upstream' }>,
  uri: string,
  ctx: InvokeContext,
): Promise<object> {
  const own = route.upstreamName === '' ? uri : route.upstreamName;
  const result = await upstream.readResource(route, own, ctx);
  if (own === uri || !Array.isArray(result.contents)) return result;
  return { ...result, contents: result.contents.map((c) => (c.uri === own ? { ...c, uri } : c)) };
}
