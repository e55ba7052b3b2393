/** A `registry.servers` row. */
export interface ServerRow {
  tenant_id: string;
  id: string;
  name: string;
  url: string;
  transport: 'auto' | 'streamable-http' | 'sse';
  auth_mode: 'none' | 'header' | 'bearer' | 'oauth_client_credentials' | 'oauth_user';
  auth_config: Record<string, string>;
  secret: string | null;
  token_secret: string | null;
  token_expires_at: Date | null;
  tool_prefix: string | null;
  timeout_ms: number | null;
  max_concurrency: number | null;
  stateful: boolean;
  health: 'pending' | 'ok' | 'error';
  last_error: string | null;
  last_discovered_at: Date | null;
  /** Era and version the server spoke at its last discovery (null until then). */
  protocol_era: 'modern' | 'legacy' | null;
  protocol_version: string | null;
  /** Transport that worked at the last discovery (null until then). */
  transport_spoken: 'streamable-http' | 'sse' | null;
  created_at: Date;
  updated_at: Date;
}

/** The API view of a server: never the secret, only whether one is stored. */
export function serverView(row: ServerRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    transport: row.transport,
    auth: { mode: row.auth_mode, ...row.auth_config, hasSecret: row.secret !== null },
    toolPrefix: row.tool_prefix,
    timeoutMs: row.timeout_ms,
    maxConcurrency: row.max_concurrency,
    stateful: row.stateful,
    health: row.health,
    lastError: row.last_error,
    lastDiscoveredAt: row.last_discovered_at,
    protocol: row.protocol_era ? { era: row.protocol_era, version: row.protocol_version, transport: row.transport_spoken } : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
