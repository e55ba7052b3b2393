import type { EdgePolicy, UpstreamInvoker } from '@switchboard/mcp-http';
import { mcpRefusal, mcpServerSpan } from '@switchboard/telemetry';
import type { GatewayAuth } from '../auth/gateway-auth';
import type { GatewayConfig } from '../config/config';
import type { GatewayLimits } from '../limits/gateway-limits';
import type { TenantDirectory } from '../tenants/tenant-directory';
import type { UsageRecorder } from '../usage/usage-recorder';

/** What the gateway's edge policy is made of. */
export interface PolicyParts {
  config: GatewayConfig;
  directory: TenantDirectory;
  auth: GatewayAuth;
  limits: GatewayLimits;
  usage: UsageRecorder | undefined;
  upstream: UpstreamInvoker;
}

/** The gateway's answers to the endpoint's questions: tenant by path or host, OAuth, limits, spans and usage, upstreams. */
export function gatewayPolicy({ config, directory, auth, limits, usage, upstream }: PolicyParts): EdgePolicy {
  const clientContext = config.GATEWAY_TRACE_CLIENT_CONTEXT;
  return {
    resolveTarget: (tenant, host) => directory.resolve(tenant, host),
    authenticate: (call, target) => auth.authenticate(call, target),
    authorizeTool: (target, tool, granted) => auth.authorizeTool(target, tool, granted),
    ...(limits.enabled ? { admit: (call, target, request) => limits.admit(call, target, request) } : {}),
    observe: {
      onRequest: (info) => {
        const span = mcpServerSpan(info, { clientContext });
        return usage ? usage.observe(info, span) : span;
      },
      // 401/403/404/413/415/… answered before a JSON-RPC method ran: a span and mcp_server_refusals_total.
      onRefusal: (refusal) => mcpRefusal(refusal),
    },
    upstream,
  };
}
