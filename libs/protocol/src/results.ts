import { META_KEYS } from './meta-keys';
import type { ServerInfo } from './server-info';
import { MODERN_VERSIONS, versionAtLeast, type LegacyVersion, type ProtocolVersion } from './versions';

export type CacheScope = 'public' | 'private';

/**
 * Fields every modern (2026-07-28) result carries: `resultType` and `_meta` serverInfo
 * (`_meta["io.modelcontextprotocol/serverInfo"]`, spec PR #3002; the SDK v2 client reads the
 * server's identity only from there).
 */
export function modernResultFields(serverInfo: ServerInfo): { resultType: 'complete'; _meta: Record<string, unknown> } {
  return { resultType: 'complete', _meta: { [META_KEYS.serverInfo]: implementationFor(serverInfo, 'modern') } };
}

/** The legacy `initialize` result for a negotiated version (fields the version does not know are left out). */
export function buildInitializeResult(input: {
  protocolVersion: LegacyVersion;
  capabilities: Record<string, unknown>;
  serverInfo: ServerInfo;
  instructions?: string;
}): Record<string, unknown> {
  const { protocolVersion } = input;
  const result: Record<string, unknown> = {
    protocolVersion,
    capabilities: capabilitiesFor(input.capabilities, protocolVersion),
    serverInfo: implementationFor(input.serverInfo, protocolVersion),
  };
  // `instructions` arrived with 2025-03-26.
  if (input.instructions !== undefined && versionAtLeast(protocolVersion, '2025-03-26')) result['instructions'] = input.instructions;
  return result;
}

/**
 * The modern `server/discover` result (supportedVersions, capabilities, serverInfo, instructions, ttlMs, cacheScope, resultType).
 * `supportedVersions` lists the modern revisions only (legacy ones are negotiated through
 * `initialize`; SDK v2 `_ondiscover` does the same), and serverInfo goes in `_meta`.
 * @throws TypeError for a ttlMs that is not a non-negative integer (a configuration bug).
 */
export function buildDiscoverResult(input: {
  capabilities: Record<string, unknown>;
  serverInfo: ServerInfo;
  instructions?: string;
  ttlMs: number;
  cacheScope: CacheScope;
}): Record<string, unknown> {
  if (!Number.isSafeInteger(input.ttlMs) || input.ttlMs < 0)
    throw new TypeError(`ttlMs must be a non-negative integer, got ${input.ttlMs}`);
  if (input.cacheScope !== 'public' && input.cacheScope !== 'private') throw new TypeError(`cacheScope must be "public" or "private"`);
  const result: Record<string, unknown> = {
    resultType: 'complete',
    supportedVersions: [...MODERN_VERSIONS],
    capabilities: capabilitiesFor(input.capabilities, 'modern'),
  };
  if (input.instructions !== undefined) result['instructions'] = input.instructions;
  result['ttlMs'] = input.ttlMs;
  result['cacheScope'] = input.cacheScope;
  result['_meta'] = { [META_KEYS.serverInfo]: implementationFor(input.serverInfo, 'modern') };
  return result;
}

/** `Implementation` as `version` knows it: title from 2025-06-18, description/websiteUrl/icons from 2025-11-25. */
function implementationFor(info: ServerInfo, version: ProtocolVersion | 'modern'): Record<string, unknown> {
  const out: Record<string, unknown> = { name: info.name, version: info.version };
  const modern = version === 'modern';
  if (info.title !== undefined && (modern || versionAtLeast(version, '2025-06-18'))) out['title'] = info.title;
  if (modern || versionAtLeast(version, '2025-11-25')) {
    if (info.description !== undefined) out['description'] = info.description;
    if (info.websiteUrl !== undefined) out['websiteUrl'] = info.websiteUrl;
    if (info.icons !== undefined) out['icons'] = info.icons;
  }
  return out;
}

/**
 * Capability keys the version does not define are dropped: `completions` arrived with
 * 2025-03-26, `tasks` with 2025-11-25 and left core again in 2026-07-28 (it is an extension
 * there; SDK v2 `enforceDeletedFields` strips it).
 */
function capabilitiesFor(capabilities: Record<string, unknown>, version: ProtocolVersion | 'modern'): Record<string, unknown> {
  const dropCompletions = version !== 'modern' && !versionAtLeast(version, '2025-03-26');
  const dropTasks = version === 'modern' || !versionAtLeast(version, '2025-11-25');
  if (!(dropCompletions && 'completions' in capabilities) && !(dropTasks && 'tasks' in capabilities)) return capabilities;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(capabilities)) {
    if ((dropCompletions && key === 'completions') || (dropTasks && key === 'tasks')) continue;
    out[key] = capabilities[key];
  }
  return out;
}
