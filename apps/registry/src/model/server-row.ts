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
  /** The "dynamic resources" publication setting; null = off. */
  dynamic_resources: { uriPrefixes: string[] } | null;
  health: 'pending' | 'ok' | 'error';
  last_error: string | null;
  last_discovered_at: Date | null;
  /** Era and version the server spoke at its last discovery (null until then). */
  protocol_era: 'modern' | 'legacy' | null;
  protocol_version: string | null;
  /** Transport that worked at the last discovery (null until then). */
  transport_spoken: 'streamable-http' | 'sse' | null;
  /** Discovery progress (null on rows from before it was recorded). */
  discovery_state: 'queued' | 'running' | 'ok' | 'error' | null;
  discovery_job_id: string | null;
  discovery_attempt: number | null;
  discovery_started_at: Date | null;
  discovery_finished_at: Date | null;
  discovery_error: string | null;
  discovery_counts: { tools: number; prompts: number; resources: number; resourceTemplates: number } | null;
  created_at: Date;
  updated_at: Date;
}

/** Where discovery of a server stands, for the console's progress display. */
export interface DiscoveryView {
  state: 'queued' | 'running' | 'ok' | 'error';
  jobId?: string;
  attempt?: number;
  startedAt?: Date;
  finishedAt?: Date;
  error?: string;
  counts?: { tools: number; prompts: number; resources: number; resourceTemplates: number };
}

/** The discovery progress of a row; rows from before it was recorded fall back to their health. */
export function discoveryView(row: ServerRow): DiscoveryView {
  const state = row.discovery_state ?? (row.health === 'ok' ? 'ok' : row.health === 'error' ? 'error' : 'queued');
  const view: DiscoveryView = { state };
  if (row.discovery_job_id !== null && row.discovery_job_id !== undefined) view.jobId = row.discovery_job_id;
  if (row.discovery_attempt !== null && row.discovery_attempt !== undefined) view.attempt = row.discovery_attempt;
  if (row.discovery_started_at) view.startedAt = row.discovery_started_at;
  if (row.discovery_finished_at) view.finishedAt = row.discovery_finished_at;
  const error = row.discovery_error ?? (state === 'error' ? row.last_error : null);
  if (error) view.error = error;
  if (row.discovery_counts) view.counts = row.discovery_counts;
  return view;
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
    dynamicResources: row.dynamic_resources ?? null,
    health: row.health,
    lastError: row.last_error,
    lastDiscoveredAt: row.last_discovered_at,
    protocol: row.protocol_era ? { era: row.protocol_era, version: row.protocol_version, transport: row.transport_spoken } : null,
    discovery: discoveryView(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
