import { z } from 'zod';
import { guardrailsSchema } from '@switchboard/guardrails';
import { surfaceProfiles, type TenantSurfaceRules } from '@switchboard/protocol';
import { discoverySettingsSchema } from './discovery/discovery-settings';
import { tenantAuthSchema } from './tenant-auth-schema';
import { TENANT_LIMIT_BOUNDS } from './tenant-limits';

/** Bounds of the settings a tenant controls (each replica keeps them per tenant). */
export const TENANT_SETTINGS_LIMITS = { origins: 100, hosts: 100, text: 512 } as const;

/**
 * The `limits` slot (`TenantLimits`): the keys known here are bounded; keys other work adds
 * are kept as they are (loose), so a producer newer than this consumer loses nothing.
 */
const bounded = (key: keyof typeof TENANT_LIMIT_BOUNDS) =>
  z.number().int().min(TENANT_LIMIT_BOUNDS[key][0]).max(TENANT_LIMIT_BOUNDS[key][1]).optional();
const tenantLimitsSchema = z
  .object({
    upstreamResponseBytes: bounded('upstreamResponseBytes'),
    maxInflight: bounded('maxInflight'),
    batchMaxItems: bounded('batchMaxItems'),
    batchMaxResponseBytes: bounded('batchMaxResponseBytes'),
  })
  .loose();

const surfaceRulesSchema = z
  .object({
    clientSurfaces: z.record(z.string(), z.string()).optional(),
    surfaces: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  })
  .superRefine((rules, ctx) => {
    try {
      surfaceProfiles(rules as TenantSurfaceRules);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  });

/**
 * The settings half of the tenant document — everything but the catalog: identity, browser
 * origins and hosts, surface rules, OAuth (`tenantAuthSchema`) and the `limits` slot (a
 * JSON object owned by the limits work, kept as is). One schema for the registry's document,
 * the development seed file and every consumer.
 */
export const tenantSettingsSchema = z.object({
  id: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label: 1-63 chars of a-z 0-9 -'),
  name: z.string().min(1).max(120),
  description: z.string().max(2000).optional(),
  origins: z.array(z.string().min(1).max(TENANT_SETTINGS_LIMITS.text)).max(TENANT_SETTINGS_LIMITS.origins).default([]),
  hosts: z.array(z.string().min(1).max(TENANT_SETTINGS_LIMITS.text)).max(TENANT_SETTINGS_LIMITS.hosts).default([]),
  surfaceRules: surfaceRulesSchema.default({}),
  auth: tenantAuthSchema.optional(),
  limits: tenantLimitsSchema.optional(),
  /** Tenant interceptors (issue 46), compiled once per document by the gateway (`compileGuardrails`). */
  guardrails: guardrailsSchema.optional(),
  discovery: discoverySettingsSchema.optional(),
});

export type TenantSettings = z.infer<typeof tenantSettingsSchema>;
