import { connectLegacy } from './connect-legacy';
import { connectModern } from './connect-modern';
import type { ConnectUpstreamOptions, UpstreamConnection } from './upstream-connection';
import { isLegacyRefusal, isModernRefusal } from './upstream-failure';

/**
 * Connects to an upstream MCP server with the official SDK clients: SDK v2 pinned to
 * 2026-07-28 for the modern era, SDK 1.x (`initialize`) over Streamable HTTP or HTTP+SSE for
 * the legacy one. With `era: 'auto'` a server that does not speak 2026-07-28 (no
 * `server/discover`, a legacy-shaped answer) is retried with the handshake, never after a
 * refused URL, a rejected credential, a timeout or a network failure (it would fail the same
 * way and only double the wait).
 */
export async function connectUpstream(o: ConnectUpstreamOptions): Promise<UpstreamConnection> {
  if (o.era === 'modern') return connectModern(o);
  if (o.transport === 'sse') return connectLegacy(o, 'sse');
  if (o.era === 'auto') {
    try {
      return await connectModern(o);
    } catch (err) {
      if (!isModernRefusal(err)) throw err;
    }
  }
  try {
    return await connectLegacy(o, 'streamable-http');
  } catch (err) {
    if (o.transport === 'auto' && isLegacyRefusal(err)) return connectLegacy(o, 'sse');
    throw err;
  }
}
