import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import type { TenantCatalog } from './published-catalog';

/**
 * Version of a tenant document: sha256 of its settings and its catalog's version (canonical
 * JSON). Sealed credentials are left out on purpose (sealing is randomised); a settings-only
 * change (protection turned on, a new IdP, an interceptor) gets a new version, so caches keyed
 * on it rebuild and gateways take the new document.
 */
export function tenantDocumentVersion(doc: Omit<TenantCatalog, 'version'>): string {
  const { id, name, description, origins, hosts, surfaceRules, auth, limits, guardrails, discovery, snapshot } = doc;
  // Guardrails and discovery only when present, so the version of a document without them is what it always was.
  const settings = {
    ...{ id, name, description: description ?? null, origins, hosts, surfaceRules, auth: auth ?? null, limits: limits ?? null },
    ...(guardrails ? { guardrails } : {}),
    ...(discovery ? { discovery } : {}),
  };
  return createHash('sha256')
    .update(canonicalJson({ ...settings, catalog: snapshot.version }))
    .digest('hex');
}
