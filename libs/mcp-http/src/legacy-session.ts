import { randomBytes } from 'node:crypto';
import { declaresMcpApps, MCP_APPS_EXTENSION } from '@switchboard/protocol';
import type { SealRefusal, StateSealer } from './state-sealer';

/** What a legacy session id remembers: the handshake facts a stateless server otherwise forgets. */
export interface LegacySession {
  tenantId: string;
  protocolVersion: string;
  /** The client's `initialize` capabilities (only the keys that matter to server→client requests). */
  capabilities: Record<string, unknown>;
}

/** Capabilities that decide what the server may ask the client; others are dropped to keep the id small. */
const KEPT_CAPABILITIES = ['sampling', 'elicitation', 'roots', 'tasks'] as const;
/** The extensions a session keeps: MCP Apps' declaration (its mimeTypes were checked at initialize). */
const APPS_DECLARED = { [MCP_APPS_EXTENSION]: {} };
/** Largest capability value kept as sent (JSON bytes); a larger one is kept as `{}` (declared, details dropped). */
const MAX_CAPABILITY_BYTES = 256;

/**
 * Mints a legacy `Mcp-Session-Id`: the sealed handshake (tenant, version, client capabilities).
 * Any replica holding the state key can read it back, so sessions cost no server state and
 * survive replica changes; it carries nothing secret (the client sent all of it).
 */
export function mintLegacySession(sealer: StateSealer, session: LegacySession): string {
  const caps: Record<string, unknown> = {};
  for (const key of KEPT_CAPABILITIES) {
    const value = session.capabilities[key];
    if (value === undefined) continue;
    caps[key] = typeof value === 'object' && value !== null && JSON.stringify(value).length <= MAX_CAPABILITY_BYTES ? value : {};
  }
  // MCP Apps decides which surface variant the session's lists come from; kept as a bare marker.
  if (declaresMcpApps(session.capabilities)) caps.extensions = APPS_DECLARED;
  // `n` makes every session its own: an anonymous caller's tasks/list is keyed by its session.
  return sealer.seal('session', { t: session.tenantId, v: session.protocolVersion, c: caps, n: randomBytes(9).toString('base64url') });
}

/** Reads a session id back for `tenantId`; `invalid` when it is not ours, altered, or another tenant's, `expired` past its `exp`. */
export function readLegacySession(sealer: StateSealer, tenantId: string, token: string): LegacySession | SealRefusal {
  const checked = sealer.check('session', token);
  if (!checked.ok) return checked.reason;
  const data = checked.data;
  if (data.t !== tenantId || typeof data.v !== 'string') return 'invalid';
  const caps = typeof data.c === 'object' && data.c !== null && !Array.isArray(data.c) ? (data.c as Record<string, unknown>) : {};
  return { tenantId, protocolVersion: data.v, capabilities: caps };
}
