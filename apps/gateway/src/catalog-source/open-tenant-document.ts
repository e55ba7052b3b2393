import { createHash } from 'node:crypto';
import { gatewayCredentialAad, type SecretBox } from '@switchboard/secret-box';
import {
  compactToolEntries,
  openGuardrailSecrets,
  parseTenantDocument,
  tenantLimitsOf,
  type CatalogSnapshot,
  type PublishedCatalog,
  type Route,
} from '@switchboard/catalog';
import type { TenantCatalog } from './catalog-source';

/** A published document validated and opened, with what tells one version of it from another. */
export interface OpenedDocument {
  catalog: TenantCatalog;
  /** Hash of the document's version and sealed credentials: equal ⇒ nothing to re-apply. */
  fingerprint: string;
  version: string;
}

/**
 * Validates a registry document (its contract, settings included; its version hashes the
 * settings with the catalog, so a settings-only change is seen too) and opens it. Throws on a
 * malformed document or credentials that do not open.
 */
export function openTenantDocument(received: unknown, box: SecretBox): OpenedDocument {
  const raw = parseTenantDocument(received);
  const fingerprint = createHash('sha256')
    .update(`${raw.version}\u0000${JSON.stringify(raw.credentials ?? {})}`)
    .digest('hex');
  return { catalog: openCatalog(raw, box), fingerprint, version: raw.snapshot.version };
}

/** Validates the shape and opens the sealed credentials into the upstream routes' headers. */
function openCatalog(raw: PublishedCatalog, box: SecretBox): TenantCatalog {
  if (typeof raw.id !== 'string' || !raw.snapshot || raw.snapshot.tenantId !== raw.id || !Array.isArray(raw.snapshot.tools)) {
    throw new Error('malformed catalog (id / snapshot mismatch)');
  }
  const headers = new Map<string, Record<string, string>>();
  for (const [serverId, sealed] of Object.entries(raw.credentials ?? {})) {
    const opened = JSON.parse(box.open(sealed, gatewayCredentialAad(raw.id, serverId))) as { headers?: Record<string, string> };
    headers.set(serverId, opened.headers ?? {});
  }
  const withCredential = <E extends { route: Route }>(e: E): E => {
    if (e.route.kind !== 'upstream') throw new Error('registry catalogs may only route to upstream servers');
    const h = headers.get(e.route.serverId);
    return h ? { ...e, route: { ...e.route, headers: h } } : e;
  };
  const s = raw.snapshot;
  // Untrusted document: invalid limits fall back to the gateway's defaults.
  const limits = tenantLimitsOf(raw.limits);
  const snapshot: CatalogSnapshot = {
    ...s,
    // Held for as long as the tenant is resident: schemas kept as text (most of a tenant's heap).
    tools: compactToolEntries(s.tools.map(withCredential)),
    resources: (s.resources ?? []).map(withCredential),
    resourceTemplates: (s.resourceTemplates ?? []).map(withCredential),
    prompts: (s.prompts ?? []).map(withCredential),
    ...(s.dynamicResources ? { dynamicResources: s.dynamicResources.map(withCredential) } : {}),
  };
  return {
    id: raw.id,
    name: raw.name,
    ...(raw.description ? { description: raw.description } : {}),
    origins: raw.origins ?? [],
    hosts: raw.hosts ?? [],
    surfaceRules: raw.surfaceRules ?? {},
    ...(raw.auth ? { auth: raw.auth } : {}),
    ...(raw.limits ? { limits: raw.limits } : {}),
    // Webhook secrets arrive sealed like credentials; opened here, once per document.
    ...(raw.guardrails ? { guardrails: openGuardrailSecrets(raw.guardrails, raw.id, (sealed, aad) => box.open(sealed, aad)) } : {}),
    ...(raw.discovery ? { discovery: raw.discovery } : {}),
    ...(raw.version ? { version: raw.version } : {}),
    snapshot,
    ...(limits ? { limits } : {}),
  };
}
