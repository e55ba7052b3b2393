import { connectLegacy } from './connect-legacy';
import { connectModern } from './connect-modern';
import type { ConnectUpstreamOptions, UpstreamConnection } from './upstream-connection';
import { isLegacyRefusal, isModernRefusal } from './upstream-failure';

/**
 * Connects to an upstream MCP server with the official SDK clients (v2 pinned to 2026-07-28, or
 * 1.x with `initialize`). With `era: 'auto'` only an answer of the wrong protocol is retried with
 * the legacy handshake: a refused URL, a credential, a timeout or an outage would fail the same way.
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
