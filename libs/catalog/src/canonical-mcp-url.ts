/** How tenants are laid out on the public edge. */
export interface TenantLayout {
  /** The gateway's public base URL (path-based tenants live under `/t/<id>/mcp`). */
  gatewayPublicUrl: string;
  /** Host-based layout: tenant `acme` is `https://acme.<domain>/mcp`. */
  domain?: string;
}

/**
 * A tenant's canonical MCP URL: the `resource` of its protected-resource metadata and the
 * `aud` of its tokens (RFC 8707 / RFC 9728). Every service must compute it identically.
 */
export function canonicalMcpUrl(tenantId: string, layout: TenantLayout): string {
  if (layout.domain) return `https://${tenantId}.${layout.domain}/mcp`;
  return `${layout.gatewayPublicUrl.replace(/\/+$/, '')}/t/${tenantId}/mcp`;
}
