import { z } from 'zod';

/** Bounds of the discovery settings a tenant controls. */
export const DISCOVERY_LIMITS = { pinned: 50, surfaces: 32, threshold: 100_000, nameLength: 128 } as const;

/** `off`: the full list; `on`: always discovery mode; `auto`: discovery mode once the surface lists more than `threshold` tools. */
export type DiscoveryMode = 'off' | 'on' | 'auto';

/** One surface's discovery setting, resolved (tenant default merged with the surface's override). */
export interface SurfaceDiscovery {
  mode: DiscoveryMode;
  threshold: number;
  /** Tools always listed in discovery mode (exposed names; names the catalog lacks are skipped). */
  pinned: readonly string[];
}

/** Default threshold of `auto`: past a few dozen tools, models pick worse and contexts fill (see docs/progressive-discovery.md). */
export const DEFAULT_DISCOVERY_THRESHOLD = 40;

const mode = z.enum(['off', 'on', 'auto']);
const threshold = z.number().int().min(0).max(DISCOVERY_LIMITS.threshold);
const pinned = z
  .array(z.string().min(1).max(DISCOVERY_LIMITS.nameLength))
  .max(DISCOVERY_LIMITS.pinned)
  .refine((names) => new Set(names).size === names.length, 'must not repeat a tool name');

const surfaceOverride = z.object({ mode: mode.optional(), threshold: threshold.optional(), pinned: pinned.optional() }).strict();

/**
 * The tenant document's `discovery` slot: a default for every surface and overrides by surface
 * id (`claude`, `openai`, `generic` or a tenant-defined one).
 */
export const discoverySettingsSchema = z
  .object({
    mode: mode.default('off'),
    threshold: threshold.default(DEFAULT_DISCOVERY_THRESHOLD),
    pinned: pinned.default([]),
    surfaces: z
      .record(z.string().regex(/^[a-z0-9-]{1,32}$/, 'surface ids match [a-z0-9-]{1,32}'), surfaceOverride)
      .refine((s) => Object.keys(s).length <= DISCOVERY_LIMITS.surfaces, `at most ${DISCOVERY_LIMITS.surfaces} surfaces`)
      .default({}),
  })
  .strict();

export type DiscoverySettings = z.infer<typeof discoverySettingsSchema>;

/** The setting that applies on one surface: its override's fields over the tenant default. */
export function surfaceDiscovery(settings: DiscoverySettings | undefined, surfaceId: string): SurfaceDiscovery {
  if (!settings) return { mode: 'off', threshold: DEFAULT_DISCOVERY_THRESHOLD, pinned: [] };
  const own = Object.hasOwn(settings.surfaces, surfaceId) ? settings.surfaces[surfaceId] : undefined;
  return {
    mode: own?.mode ?? settings.mode,
    threshold: own?.threshold ?? settings.threshold,
    pinned: own?.pinned ?? settings.pinned,
  };
}

/** Whether a surface listing `toolCount` tools is served in discovery mode. */
export function discoveryActive(setting: SurfaceDiscovery, toolCount: number): boolean {
  return setting.mode === 'on' || (setting.mode === 'auto' && toolCount > setting.threshold);
}

/** Whether any surface can be in discovery mode (otherwise nothing is built for the tenant). */
export function discoveryEnabled(settings: DiscoverySettings | undefined): boolean {
  if (!settings) return false;
  return settings.mode !== 'off' || Object.values(settings.surfaces).some((s) => s.mode !== undefined && s.mode !== 'off');
}
