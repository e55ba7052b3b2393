import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import type { TenantCatalog } from './published-catalog';

/**
 * Version of a tenant document: sha256 of its settings and its catalog's version (canonical
 * JSON). Sealed credentials are left out on purpose (sealing is randomised); a settings-only
 * change (protection turned on, a new IdP) gets a new version, so caches keyed on it rebuild.
 */
export function tenantDocumentVersion(doc: Omit<TenantCatalog, 'version'>): string {
  const { id, name, description, origins, hosts, surfaceRules, auth, limits, discovery, snapshot } = doc;
  // `discovery` only when set, so the versions of documents without it stay what they were.
  return createHash('sha256')
    .update(
      canonicalJson({ id, name, description: description ?? null, origins, hosts, surfaceRules, auth: auth ?? null, limits: limits ?? null, ...(discovery ? { discovery } : {}), catalog: snapshot.version }),
    )
    .digest('hex');
}
