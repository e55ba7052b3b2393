import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { tenantAuthSchema, tenantSettingsSchema, type TenantSettings } from '@switchboard/catalog';
import { TenantSeedError } from './tenant-seed-error';

const upstreamSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be 1-32 chars of a-z 0-9 _ -'),
  url: z.url(),
  stateful: z.boolean().default(false),
  /** The upstream's own credential headers (never the client's token). */
  headers: z.record(z.string(), z.string()).default({}),
  /** Prefix for exposed tool names (default: none). */
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{0,16}$/)
    .optional(),
});

const catalogSchema = z.union([
  /** `tools` publishes only the named tools of the catalog (all when absent). */
  z.object({ builtin: z.enum(['demo', 'conformance', 'chain']), tools: z.array(z.string().min(1)).min(1).optional() }).strict(),
  z.object({ fixture: z.string().min(1), tools: z.array(z.string().min(1)).min(1).optional() }).strict(),
  z.object({ upstream: upstreamSchema }).strict(),
]);

const seedEntrySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    origins: z.array(z.string()).optional(),
    hosts: z.array(z.string()).optional(),
    instructions: z.string().max(10_000).optional(),
    surfaces: z.unknown().optional(),
    auth: tenantAuthSchema.optional(),
    /** Per-tenant overrides of the gateway's limits (the tenant document's `limits`, validated by its schema). */
    limits: z.record(z.string(), z.unknown()).optional(),
    /** Tenant interceptors (the tenant document's `guardrails`, validated by its schema). */
    guardrails: z.unknown().optional(),
    /** Progressive discovery per surface (the tenant document's `discovery`, validated by its schema). */
    discovery: z.unknown().optional(),
    /** `registry`: the registry creates this tenant (npm start's seed) and publishes its document; the file source leaves it alone. */
    seed: z.literal('registry').optional(),
    catalogs: z.array(catalogSchema).min(1).optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.seed !== 'registry' && !t.catalogs)
      ctx.addIssue({ code: 'custom', path: ['catalogs'], message: 'is required (unless seed: registry)' });
  });

const seedFileSchema = z.object({ tenants: z.array(seedEntrySchema).min(1) }).strict();

export type CatalogSpec = z.infer<typeof catalogSchema>;
export type UpstreamSpec = z.infer<typeof upstreamSchema>;

/** One tenant of the seed file: its settings (the tenant document's contract) and how its catalog is made. */
export interface TenantSeed {
  settings: TenantSettings;
  instructions?: string;
  /** Served from the file (gateway file source) or created in the registry (`registry`). */
  seed: 'file' | 'registry';
  catalogs: CatalogSpec[];
  /** Absolute path of the file, for resolving `fixture:` paths. */
  file: string;
}

/**
 * The one reader of the development tenants file (`config/tenants.yaml`): parses and
 * validates it once — each tenant's settings with the tenant document's own
 * `tenantSettingsSchema` — so the gateway's file source, the auth service and the registry's
 * seed all see the same tenants. Throws TenantSeedError listing every problem with its field.
 */
export function readTenantSeed(file: string): TenantSeed[] {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    throw new TenantSeedError('SEED_UNREADABLE', `Cannot read tenants file ${abs}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, {
      cause: err,
    });
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new TenantSeedError('SEED_INVALID', `Tenants file ${abs} is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
  const parsed = seedFileSchema.safeParse(raw);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const out: TenantSeed[] = [];
  const ids = new Set<string>();
  for (const [index, t] of (parsed.success ? parsed.data.tenants : []).entries()) {
    const settings = tenantSettingsSchema.safeParse({
      id: t.id,
      name: t.name,
      description: t.description,
      origins: t.origins,
      hosts: t.hosts,
      surfaceRules: t.surfaces,
      auth: t.auth,
      limits: t.limits,
      guardrails: t.guardrails,
      discovery: t.discovery,
    });
    if (!settings.success) {
      // Field names as written in the file (`surfaces`, not the document's `surfaceRules`).
      for (const i of settings.error.issues)
        problems.push(`  tenants.${index}.${i.path.map((p) => (p === 'surfaceRules' ? 'surfaces' : String(p))).join('.')}: ${i.message}`);
      continue;
    }
    if (ids.has(t.id)) problems.push(`  tenants.${index}.id: tenant id "${t.id}" appears twice`);
    ids.add(t.id);
    out.push({
      settings: settings.data,
      ...(t.instructions ? { instructions: t.instructions } : {}),
      seed: t.seed ?? 'file',
      catalogs: t.catalogs ?? [],
      file: abs,
    });
  }
  if (problems.length > 0) throw new TenantSeedError('SEED_INVALID', `Invalid tenants file ${abs}:\n${problems.join('\n')}`);
  return out;
}
