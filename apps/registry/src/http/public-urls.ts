import type { RegistryConfig } from '../config';

/** The tenant's canonical MCP URL and the line to add it to Claude Code. */
export function connectInfo(config: RegistryConfig, tenantId: string): { mcpUrl: string; claudeCommand: string } {
  const mcpUrl = config.GATEWAY_DOMAIN
    ? `https://${tenantId}.${config.GATEWAY_DOMAIN}/mcp`
    : `${config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '')}/t/${tenantId}/mcp`;
  return { mcpUrl, claudeCommand: `claude mcp add --transport http ${tenantId} ${mcpUrl}` };
}

/** The auth service's public URL: AUTH_PUBLIC_URL, else CONSOLE_ISSUER without `/platform`. */
export function authPublicUrl(config: RegistryConfig): string | undefined {
  const explicit = config.AUTH_PUBLIC_URL?.replace(/\/+$/, '');
  if (explicit) return explicit;
  return config.CONSOLE_ISSUER?.replace(/\/platform$/, '');
}

/** A console route in the SPA's hash router (`#/tools`); anything else is dropped rather than redirected to. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^#\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]{0,500}$/.test(value) ? value : '';
}
