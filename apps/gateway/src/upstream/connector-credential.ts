import type { InvokeContext } from '@switchboard/mcp-http';
import type { ConnectorCredential } from '../auth/connector-tokens';
import { GatewayError } from './gateway-errors';
import type { ConnectorCredentialLookup, UpstreamRoute } from './upstream-types';

/**
 * For a per-user connector route: the route with the user's own upstream token as its only
 * credential (replacing any static one; the pool keys connections by it), or a coded failure
 * (not linked ⇒ the link URL). Any other route is returned as it is, without a promise.
 */
export function withConnectorCredential(
  lookup: ConnectorCredentialLookup | undefined,
  route: UpstreamRoute,
  ctx: InvokeContext,
): UpstreamRoute | Promise<UpstreamRoute> {
  const pending = lookup?.(ctx.tenantId, route.serverId, ctx);
  return pending ? pending.then((credential) => credentialRoute(route, credential)) : route;
}

function credentialRoute(route: UpstreamRoute, credential: ConnectorCredential): UpstreamRoute {
  const upstream = route.serverId;
  if (credential.kind === 'link') {
    const again =
      credential.reason === 'refresh_failed'
        ? `Your ${upstream} account must be connected again`
        : `Connect your ${upstream} account first`;
    throw new GatewayError('GW_CONNECTOR_NOT_LINKED', `${again}, then retry: ${credential.linkUrl}`, {
      upstream,
      linkUrl: credential.linkUrl,
      reason: credential.reason,
    });
  }
  if (credential.kind === 'error')
    throw new GatewayError(credential.code, `Upstream server ${upstream}: ${credential.message}`, { upstream });
  return { ...route, headers: { ...route.headers, authorization: `Bearer ${credential.token}` } };
}
