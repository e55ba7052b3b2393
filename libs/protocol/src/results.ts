import type { ServerInfo } from './server-info';
import type { LegacyVersion } from './versions';

export type CacheScope = 'public' | 'private';

/** Fields every modern (2026-07-28) result carries: `resultType` and `_meta` serverInfo. */
export function modernResultFields(serverInfo: ServerInfo): { resultType: 'complete'; _meta: Record<string, unknown> } {
  void serverInfo;
  throw new Error('not implemented');
}

/** The legacy `initialize` result for a negotiated version (fields the version does not know are left out). */
export function buildInitializeResult(input: {
  protocolVersion: LegacyVersion;
  capabilities: Record<string, unknown>;
  serverInfo: ServerInfo;
  instructions?: string;
}): Record<string, unknown> {
  void input;
  throw new Error('not implemented');
}

/** The modern `server/discover` result (supportedVersions, capabilities, serverInfo, instructions, ttlMs, cacheScope, resultType). */
export function buildDiscoverResult(input: {
  capabilities: Record<string, unknown>;
  serverInfo: ServerInfo;
  instructions?: string;
  ttlMs: number;
  cacheScope: CacheScope;
}): Record<string, unknown> {
  void input;
  throw new Error('not implemented');
}
