import { MCP_APPS_META_KEYS } from './mcp-apps';
import { BUILTIN_SURFACES, type SurfaceProfile } from './surface-profile';

/** What a request tells us about its client, strongest signal first (ARCHITECTURE §3). */
export interface SurfaceSignals {
  /** Verified OAuth client id (CIMD URL or registered id), when the tenant is protected. */
  oauthClientId?: string;
  /** Modern `_meta` clientInfo.name, or legacy `initialize` clientInfo.name. */
  clientInfoName?: string;
  origin?: string;
  userAgent?: string;
}

/** A tenant's surface configuration: overrides per OAuth client, and custom or adjusted profiles. */
export interface TenantSurfaceRules {
  /** OAuth client id → surface id. */
  clientSurfaces?: Record<string, string>;
  /** Custom surfaces, or field overrides of the built-ins (`claude`, `openai`, `generic`). */
  surfaces?: Record<string, Partial<SurfaceProfile>>;
}

type BuiltinId = keyof typeof BUILTIN_SURFACES;

/** Registrable domains whose hosts (and subdomains) identify a client family. */
const CLAUDE_DOMAINS = ['claude.ai', 'claude.com'];
const OPENAI_DOMAINS = ['chatgpt.com', 'openai.com', 'oaiusercontent.com'];
const CLAUDE_NAME = /claude|anthropic/i;
const OPENAI_NAME = /openai|chatgpt/i;
const CLAUDE_AGENT = /claude-user|claude-code|anthropic/i;
const OPENAI_AGENT = /openai-mcp|chatgpt/i;
const HTTPS = 'https://';
const SURFACE_ID = /^[a-z0-9-]{1,32}$/;
const WHITESPACE = /\s/;
const NOT_IN_ORIGIN = /[/?#@\\\s]/;
const PORT = /^\d{1,5}$/;

/**
 * Picks the surface id: tenant override for the OAuth client, client identity, clientInfo, Origin, User-Agent, else `generic`.
 * Signals only shape what is published, never what is allowed, so a spoofed User-Agent
 * gains nothing. Returns only ids that exist for the tenant (built-ins or `rules.surfaces`).
 */
export function resolveSurfaceId(signals: SurfaceSignals, rules?: TenantSurfaceRules): string {
  const clientId = signals.oauthClientId;
  if (clientId !== undefined) {
    const override =
      rules?.clientSurfaces !== undefined && Object.hasOwn(rules.clientSurfaces, clientId) ? rules.clientSurfaces[clientId] : undefined;
    if (override !== undefined && surfaceExists(override, rules)) return override;
    // A CIMD client id is an https URL on the client's own domain (verified by the AS).
    if (clientId.startsWith(HTTPS)) {
      const family = familyOfHost(hostOfUrl(clientId));
      if (family !== undefined) return family;
    }
  }
  const name = signals.clientInfoName;
  if (name !== undefined && name !== '') {
    if (CLAUDE_NAME.test(name)) return 'claude';
    if (OPENAI_NAME.test(name)) return 'openai';
  }
  const origin = signals.origin;
  if (origin !== undefined && origin.startsWith(HTTPS)) {
    const family = familyOfHost(hostOfOrigin(origin));
    if (family !== undefined) return family;
  }
  const agent = signals.userAgent;
  if (agent !== undefined && agent !== '') {
    if (CLAUDE_AGENT.test(agent)) return 'claude';
    if (OPENAI_AGENT.test(agent)) return 'openai';
  }
  return 'generic';
}

/**
 * Built-in profiles merged with a tenant's overrides and custom profiles (validated: unknown fields rejected).
 * Custom surfaces start from `generic` (label defaults to the id). Runs at config load, so it
 * throws a plain Error naming the surface and field for any bad value, and also checks that
 * every `clientSurfaces` target exists. The returned profiles are frozen copies.
 */
export function surfaceProfiles(rules?: TenantSurfaceRules): Record<string, SurfaceProfile> {
  const out: Record<string, SurfaceProfile> = {};
  for (const id of Object.keys(BUILTIN_SURFACES) as BuiltinId[]) out[id] = freeze({ ...BUILTIN_SURFACES[id] });
  const surfaces: unknown = rules?.surfaces;
  if (surfaces !== undefined) {
    if (!isPlainObject(surfaces)) throw new Error('surfaces must be an object of surface id → profile fields');
    for (const id of Object.keys(surfaces)) {
      if (!SURFACE_ID.test(id)) throw new Error(`surface "${id}": id must match [a-z0-9-]{1,32}`);
      const base: SurfaceProfile = isBuiltinId(id) ? BUILTIN_SURFACES[id] : { ...BUILTIN_SURFACES.generic, id, label: id };
      out[id] = freeze(mergeProfile(id, base, surfaces[id]));
    }
  }
  const clientSurfaces: unknown = rules?.clientSurfaces;
  if (clientSurfaces !== undefined) {
    if (!isPlainObject(clientSurfaces)) throw new Error('clientSurfaces must be an object of OAuth client id → surface id');
    for (const clientId of Object.keys(clientSurfaces)) {
      const target = clientSurfaces[clientId];
      if (clientId === '') throw new Error('clientSurfaces: an OAuth client id must not be empty');
      if (typeof target !== 'string' || !Object.hasOwn(out, target)) {
        throw new Error(
          `clientSurfaces["${clientId}"]: surface ${JSON.stringify(target)} is not defined (known: ${Object.keys(out).join(', ')})`,
        );
      }
    }
  }
  return out;
}

const FIELD_CHECKS: Readonly<Record<keyof SurfaceProfile, (value: unknown) => string | undefined>> = {
  id: () => 'must equal the surface key (or be left out)',
  label: (v) =>
    typeof v === 'string' && v.trim() !== '' && v.length <= 100 ? undefined : 'must be a non-empty string of at most 100 characters',
  keepMetaKeys: checkMetaKeys,
  publishSecuritySchemes: checkBoolean,
  mirrorTitleToAnnotations: checkBoolean,
  defaultHintAnnotations: checkBoolean,
  maxNameLength: (v) => checkInteger(v, 1, 128),
  maxDescriptionLength: (v) => checkInteger(v, 0, 1_000_000),
  maxTools: (v) => checkInteger(v, 0, 100_000),
  mcpApps: checkBoolean,
};

function mergeProfile(id: string, base: SurfaceProfile, overrides: unknown): SurfaceProfile {
  if (!isPlainObject(overrides)) throw new Error(`surface "${id}": must be an object of profile fields`);
  const merged: SurfaceProfile = { ...base, keepMetaKeys: [...base.keepMetaKeys] };
  for (const field of Object.keys(overrides)) {
    if (!Object.hasOwn(FIELD_CHECKS, field)) {
      throw new Error(
        `surface "${id}": unknown field "${field}" (known: ${Object.keys(FIELD_CHECKS)
          .filter((f) => f !== 'id')
          .join(', ')})`,
      );
    }
    const key = field as keyof SurfaceProfile;
    const value = overrides[field];
    if (key === 'id' && value === id) continue;
    const problem = FIELD_CHECKS[key](value);
    if (problem !== undefined) throw new Error(`surface "${id}": ${field} ${problem}`);
    assign(merged, key, value);
  }
  // A surface that publishes apps to everyone keeps their meta keys too (what the `+apps` variant adds).
  if (merged.mcpApps === true && !merged.keepMetaKeys.includes('*'))
    for (const key of MCP_APPS_META_KEYS) if (!merged.keepMetaKeys.includes(key)) merged.keepMetaKeys.push(key);
  return merged;
}

/** Writes one validated field (the checks above guarantee the type). */
function assign<K extends keyof SurfaceProfile>(profile: SurfaceProfile, key: K, value: unknown): void {
  profile[key] = (Array.isArray(value) ? [...value] : value) as SurfaceProfile[K];
}

function checkMetaKeys(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be an array of strings';
  for (const entry of value) {
    if (typeof entry !== 'string' || entry === '' || entry.length > 128 || WHITESPACE.test(entry)) {
      return `entries must be non-empty strings without whitespace (an exact key, a prefix ending in "/", or "*"), got ${JSON.stringify(entry)}`;
    }
  }
  return undefined;
}

function checkBoolean(value: unknown): string | undefined {
  return typeof value === 'boolean' ? undefined : 'must be a boolean';
}

function checkInteger(value: unknown, min: number, max: number): string | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? undefined
    : `must be an integer from ${min} to ${max}`;
}

function surfaceExists(id: string, rules: TenantSurfaceRules | undefined): boolean {
  return isBuiltinId(id) || (rules?.surfaces !== undefined && Object.hasOwn(rules.surfaces, id));
}

function isBuiltinId(id: string): id is BuiltinId {
  return Object.hasOwn(BUILTIN_SURFACES, id);
}

function familyOfHost(host: string | undefined): 'claude' | 'openai' | undefined {
  if (host === undefined || host === '') return undefined;
  if (onDomain(host, CLAUDE_DOMAINS)) return 'claude';
  if (onDomain(host, OPENAI_DOMAINS)) return 'openai';
  return undefined;
}

function onDomain(host: string, domains: readonly string[]): boolean {
  for (const domain of domains) {
    if (
      host === domain ||
      (host.length > domain.length && host.endsWith(domain) && host.charCodeAt(host.length - domain.length - 1) === 0x2e)
    ) {
      return true;
    }
  }
  return false;
}

/** Host of an https URL (userinfo and port removed, lower-cased); undefined when unparsable. */
function hostOfUrl(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** An Origin is exactly `https://host[:port]`; anything else (a path, userinfo) is not trusted as one. */
function hostOfOrigin(origin: string): string | undefined {
  const authority = origin.slice(HTTPS.length).toLowerCase();
  if (authority === '' || NOT_IN_ORIGIN.test(authority)) return undefined;
  const colon = authority.lastIndexOf(':');
  if (colon === -1) return authority;
  return PORT.test(authority.slice(colon + 1)) ? authority.slice(0, colon) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function freeze(profile: SurfaceProfile): SurfaceProfile {
  Object.freeze(profile.keepMetaKeys);
  return Object.freeze(profile);
}
