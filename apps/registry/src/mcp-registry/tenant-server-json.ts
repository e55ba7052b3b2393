import type { RegistryConfig } from '../config';
import type { Queryable } from '../db/database';
import { connectInfo } from '../http/public-urls';
import { SERVER_JSON_SCHEMA_URL } from '../model/server-json-schema';

/** The official registry's metadata key on each listed server. */
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';

/** One entry of `/v0.1/servers` (the registry API's `ServerResponse`). */
export interface ServerResponse {
  server: Record<string, unknown>;
  _meta: Record<string, unknown>;
}

interface PublishedTenantRow {
  id: string;
  name: string;
  description: string | null;
  current_version: string;
  created_at: Date;
  published_at: Date;
  protected: boolean | null;
  scopes: string[] | null;
}

/** The reverse-DNS namespace of served names: MCP_REGISTRY_NAMESPACE, else the gateway's host reversed. */
export function registryNamespace(config: RegistryConfig): string {
  if (config.MCP_REGISTRY_NAMESPACE) return config.MCP_REGISTRY_NAMESPACE;
  const host = config.GATEWAY_DOMAIN ?? new URL(config.GATEWAY_PUBLIC_URL).hostname;
  return host
    .replace(/^\[|\]$/g, '')
    .replace(/[^a-zA-Z0-9.-]/g, '-')
    .split('.')
    .reverse()
    .join('.');
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/**
 * The tenant's published MCP endpoint as a registry `server.json`: one streamable-http remote at
 * its canonical MCP URL (both protocol eras answer there), with the Authorization header declared
 * when the tenant is OAuth-protected. Undefined when the tenant does not exist or never published.
 */
export async function tenantServerResponse(q: Queryable, config: RegistryConfig, tenantId: string): Promise<ServerResponse | undefined> {
  const rows = await q.query<PublishedTenantRow>(
    `SELECT t.id, t.name, t.description, t.current_version, t.created_at, s.created_at AS published_at, a.protected, a.scopes
       FROM registry.tenants t
       JOIN registry.snapshots s ON s.tenant_id = t.id AND s.version = t.current_version
       LEFT JOIN registry.tenant_auth a ON a.tenant_id = t.id
      WHERE t.id = $1`,
    [tenantId],
  );
  const t = rows[0];
  if (!t) return undefined;
  const { mcpUrl } = connectInfo(config, t.id);
  const remote: Record<string, unknown> = { type: 'streamable-http', url: mcpUrl };
  if (t.protected) {
    remote.headers = [
      {
        name: 'Authorization',
        description:
          'Bearer access token from the tenant authorization server (OAuth 2.1; an unauthenticated request answers 401 with WWW-Authenticate naming the protected-resource metadata)',
        isRequired: true,
        isSecret: true,
      },
    ];
  }
  const server = {
    $schema: SERVER_JSON_SCHEMA_URL,
    name: `${registryNamespace(config)}/${t.id}`,
    title: clip(t.name, 100),
    description: clip(t.description?.trim() || `MCP tools of ${t.name}`, 100),
    version: t.current_version,
    remotes: [remote],
    _meta: {
      [PUBLISHER_META]: {
        'dev.switchboard': {
          tenant: t.id,
          authorization: t.protected ? { type: 'oauth2', resource: mcpUrl, scopes: t.scopes ?? [] } : { type: 'none' },
        },
      },
    },
  };
  const official = { status: 'active', publishedAt: t.created_at.toISOString(), updatedAt: t.published_at.toISOString(), isLatest: true };
  return { server, _meta: { [OFFICIAL_META]: official } };
}
