import { CatalogError } from './catalog-error';
import type { CatalogSnapshot } from './definitions';
import type { PublishedCatalog } from './published-catalog';
import { tenantDocumentVersion } from './tenant-document-version';
import { tenantSettingsSchema } from './tenant-settings-schema';

/**
 * Validates a tenant document as it arrives (Redis, the registry's internal API): settings
 * against `tenantSettingsSchema`, the snapshot's tenant and lists, the credentials map. The
 * returned document has its defaults filled and a `version` (computed when the producer sent
 * none). Throws CatalogError `CATALOG_INVALID_DOCUMENT` naming the field; the caller keeps
 * the previous document.
 */
export function parseTenantDocument(raw: unknown): PublishedCatalog {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('(document)', 'must be an object');
  const r = raw as Record<string, unknown>;
  const parsed = tenantSettingsSchema.safeParse(r);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(issue?.path.join('.') || '(document)', issue?.message ?? 'invalid');
  }
  const snapshot = r.snapshot as CatalogSnapshot | undefined;
  if (typeof snapshot !== 'object' || snapshot === null) throw invalid('snapshot', 'is required');
  if (snapshot.tenantId !== parsed.data.id) throw invalid('snapshot.tenantId', `must equal the document id "${parsed.data.id}"`);
  if (typeof snapshot.version !== 'string') throw invalid('snapshot.version', 'must be a string');
  for (const key of ['tools', 'resources', 'resourceTemplates', 'prompts', 'dynamicResources'] as const) {
    if (snapshot[key] !== undefined && !Array.isArray(snapshot[key])) throw invalid(`snapshot.${key}`, 'must be an array');
  }
  if (!Array.isArray(snapshot.tools)) throw invalid('snapshot.tools', 'must be an array');
  const credentials = r.credentials;
  if (
    credentials !== undefined &&
    (typeof credentials !== 'object' || credentials === null || Object.values(credentials).some((v) => typeof v !== 'string'))
  ) {
    throw invalid('credentials', 'must map server ids to sealed strings');
  }
  const s = parsed.data;
  const doc: Omit<PublishedCatalog, 'version'> = {
    id: s.id,
    name: s.name,
    ...(s.description ? { description: s.description } : {}),
    origins: s.origins,
    hosts: s.hosts,
    surfaceRules: s.surfaceRules,
    ...(s.auth ? { auth: s.auth } : {}),
    ...(s.limits ? { limits: s.limits } : {}),
    ...(s.guardrails && s.guardrails.interceptors.length > 0 ? { guardrails: s.guardrails } : {}),
    ...(s.discovery ? { discovery: s.discovery } : {}),
    snapshot: {
      ...snapshot,
      resources: snapshot.resources ?? [],
      resourceTemplates: snapshot.resourceTemplates ?? [],
      prompts: snapshot.prompts ?? [],
    },
    ...(credentials ? { credentials: credentials as Record<string, string> } : {}),
  };
  return { ...doc, version: typeof r.version === 'string' ? r.version : tenantDocumentVersion(doc) };
}

function invalid(field: string, message: string): CatalogError {
  return new CatalogError('CATALOG_INVALID_DOCUMENT', `tenant document ${field}: ${message}`, { field });
}
