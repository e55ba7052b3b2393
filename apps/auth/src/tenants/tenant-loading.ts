import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantRegistry } from './tenant-registry';

/** Every path shape that names a tenant: `/t/<id>/…`, discovery by path insertion, and the internal API's two forms. */
const PATH_TENANT = [
  /^\/t\/([^/]+)(?:\/|$)/,
  /^\/\.well-known\/[^/]+\/t\/([^/]+)\/?$/,
  /^\/internal\/t\/([^/]+)\//,
  /^\/internal\/tenants\/([^/]+)\//,
];

export interface TenantLoader {
  /** Undefined when nothing needs waiting for; else resolves (never rejects) once the tenant was read or found absent. */
  load(tenantId: string): Promise<unknown> | undefined;
}

/**
 * The tenants a request names: the one in its path, and the one its Host names in the host-based
 * layout (the platform issuer is served only off tenant hosts, so that one counts as well).
 */
export function tenantsNamedBy(req: FastifyRequest, tenants: TenantRegistry): string[] {
  const url = req.raw.url ?? '/';
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const out: string[] = [];
  for (const shape of PATH_TENANT) {
    const raw = shape.exec(path)?.[1];
    if (raw === undefined) continue;
    // Routes see their parameters decoded: `/t/ac%6De/…` names `acme` there, so it is read as `acme` here.
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      // Not a decodable segment: no route will find a tenant by it either.
    }
    break;
  }
  const byHost = tenants.idOfHost(req.headers.host);
  if (byHost !== undefined) out.push(byHost);
  return out;
}

/**
 * Lazy tenant loading (AUTH_TENANT_LOADING=lazy): before any route or oidc-provider runs, the
 * tenants a request names are read if not held, so every later look-up (`byId`, `byHost`,
 * `tenantOf`) stays synchronous and sees the tenant's current document. Must be installed
 * before `mountOidc`'s hook. Seed tenants are held from boot and never read here.
 */
export function installTenantLoading(app: FastifyInstance, tenants: TenantRegistry, loader: TenantLoader): void {
  app.addHook('onRequest', async (req) => {
    for (const id of tenantsNamedBy(req, tenants)) {
      if (tenants.isPinned(id)) continue;
      const pending = loader.load(id);
      if (pending) await pending;
    }
  });
}
