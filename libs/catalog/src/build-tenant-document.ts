import type { CatalogSnapshot } from './definitions';
import type { PublishedCatalog } from './published-catalog';
import { tenantDocumentVersion } from './tenant-document-version';
import type { TenantSettings } from './tenant-settings-schema';

/**
 * The one builder of tenant documents (registry publisher, development seed): settings +
 * catalog snapshot (+ sealed credentials) with the document version filled in. Optional
 * settings that are absent stay absent, so the document a consumer sees is what was validated.
 */
export function buildTenantDocument(
  settings: TenantSettings,
  snapshot: CatalogSnapshot,
  credentials?: Record<string, string>,
): PublishedCatalog {
  const doc: Omit<PublishedCatalog, 'version'> = {
    id: settings.id,
    name: settings.name,
    ...(settings.description ? { description: settings.description } : {}),
    origins: settings.origins,
    hosts: settings.hosts,
    surfaceRules: settings.surfaceRules,
    ...(settings.auth ? { auth: settings.auth } : {}),
    ...(settings.limits ? { limits: settings.limits } : {}),
    ...(settings.guardrails && settings.guardrails.interceptors.length > 0 ? { guardrails: settings.guardrails } : {}),
    ...(settings.discovery ? { discovery: settings.discovery } : {}),
    snapshot,
  };
  return { ...doc, version: tenantDocumentVersion(doc), ...(credentials ? { credentials } : {}) };
}
