import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AuthLimits } from '../http/auth-limits';
import type { AuthTenant } from '../tenants/tenant-auth';
import type { TenantRegistry } from '../tenants/tenant-registry';
import type { ProviderCache } from './provider-cache';

/** Paths (relative to a tenant's mount) that oidc-provider answers; everything else is ours. */
const PROVIDER_PATH =
  /^\/(?:\.well-known\/(?:openid-configuration|oauth-authorization-server)|authorize(?:\/[A-Za-z0-9_-]+)?|token|register(?:\/[^/]+)?|jwks|revoke)$/;
/** RFC 8414 / OIDC path insertion: `/.well-known/<doc>/t/<tenant>`. */
const INSERTED = /^\/\.well-known\/(openid-configuration|oauth-authorization-server)\/t\/([a-z0-9-]{1,63})$/;
const PATH_TENANT = /^\/t\/([a-z0-9-]{1,63})(\/.*)$/;
/** The platform issuer: path insertion, and everything under its mount. */
const PLATFORM_INSERTED = /^\/\.well-known\/(openid-configuration|oauth-authorization-server)\/platform$/;
const PLATFORM_PATH = /^\/platform(\/.*)$/;
/** Device authorization (RFC 8628), served by the platform issuer only: `/device/auth`, `/device`, `/device/<uid>`. */
const PLATFORM_DEVICE_PATH = /^\/device(?:\/auth|\/[A-Za-z0-9_-]{1,64})?$/;

interface Dispatch {
  tenant: AuthTenant;
  mountPath: string;
  inner: string;
}

export interface OidcMountOptions {
  tenants: TenantRegistry;
  providers: ProviderCache;
  /** DCR and token-endpoint limits per tenant × client address (shared limiter). */
  limits: AuthLimits;
  logger: Logger;
  /** The platform issuer (console sign-in), when configured; it has no registration endpoint. */
  platform?: AuthTenant;
}

/**
 * Hands provider-owned requests to the right tenant's oidc-provider from a Fastify
 * `onRequest` hook (the same place @fastify/middie runs middleware), before any body parsing,
 * so oidc-provider reads the raw body itself. It also:
 * - maps every discovery URL a client may try (path insertion and appending, root form for
 *   host-based tenants) to the tenant's issuer;
 * - fills a missing MCP `scope` on /authorize with the tenant's default scopes;
 * - rate-limits and CORS-enables dynamic client registration;
 * - serves the platform issuer (console sign-in) under `/platform` when it is configured.
 * `originalUrl` is kept equal to mount + rewritten URL: oidc-provider derives its mount path
 * (and so every endpoint URL in metadata) from it.
 */
export function mountOidc(app: FastifyInstance, o: OidcMountOptions): void {
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const d = resolvePlatform(req, o.platform, o.tenants) ?? resolve(req, o.tenants);
    if (!d) return;
    const raw = req.raw as IncomingMessage & { originalUrl?: string };
    const res = reply.raw as ServerResponse;
    const q = raw.url?.indexOf('?') ?? -1;
    let query = q >= 0 ? (raw.url ?? '').slice(q + 1) : '';

    if (d.inner === '/register' && req.method === 'OPTIONS') {
      return reply
        .code(204)
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'content-type, authorization')
        .header('access-control-max-age', '600')
        .send();
    }
    if (d.inner.startsWith('/register')) {
      // Registration is for any origin but never with credentials (no cookies are involved).
      res.setHeader('access-control-allow-origin', '*');
      if (d.inner === '/register' && req.method === 'POST') {
        const retryAfter = await o.limits.hit('dcr', d.tenant.id, req.ip);
        if (retryAfter > 0) return tooManyRequests(reply, retryAfter, 'too many client registrations from this address; retry later');
      }
    }
    // Device authorization and user-code entry share the token budget: a user code is short, so its guesses are bounded too.
    if ((d.inner === '/token' || d.inner === '/device/auth' || d.inner === '/device') && req.method === 'POST') {
      const retryAfter = await o.limits.hit('token', d.tenant.id, req.ip);
      if (retryAfter > 0) return tooManyRequests(reply, retryAfter, 'too many token requests from this address; retry later');
    }
    if (d.inner === '/authorize' && req.method === 'GET') query = withDefaultScope(query, d.tenant);

    let entry;
    try {
      entry = await o.providers.get(d.tenant);
    } catch (err) {
      o.logger.error({ err, tenant: d.tenant.id }, 'could not build the tenant authorization server');
      return reply
        .code(503)
        .header('content-type', 'application/json')
        .send({ error: 'temporarily_unavailable', error_description: 'authorization server unavailable' });
    }
    const url = query ? `${d.inner}?${query}` : d.inner;
    raw.url = url;
    raw.originalUrl = `${d.mountPath}${url}`;
    // Host-based issuers are https by definition (TLS ends at the edge): endpoint URLs in
    // metadata must use the issuer's scheme whatever the hop to us used.
    if (d.mountPath === '') raw.headers['x-forwarded-proto'] = 'https';
    reply.hijack();
    // Koa answers the request itself and never rejects (errors become OAuth error responses).
    await entry.callback(raw, res);
  });
}

function pathOf(req: FastifyRequest): string {
  const url = req.raw.url ?? '/';
  const q = url.indexOf('?');
  return q >= 0 ? url.slice(0, q) : url;
}

/**
 * The platform issuer's discovery and endpoints (never `/register`: its one client is static).
 * Not on a host-based tenant's origin: that origin belongs to the tenant's own issuer.
 */
function resolvePlatform(req: FastifyRequest, platform: AuthTenant | undefined, tenants: TenantRegistry): Dispatch | undefined {
  if (!platform || tenants.byHost(req.headers.host)) return undefined;
  const path = pathOf(req);
  const inserted = PLATFORM_INSERTED.exec(path);
  if (inserted?.[1]) return { tenant: platform, mountPath: platform.mountPath, inner: `/.well-known/${inserted[1]}` };
  const inner = PLATFORM_PATH.exec(path)?.[1];
  if (!inner || inner.startsWith('/register') || !(PROVIDER_PATH.test(inner) || PLATFORM_DEVICE_PATH.test(inner))) return undefined;
  return { tenant: platform, mountPath: platform.mountPath, inner };
}

function resolve(req: FastifyRequest, tenants: TenantRegistry): Dispatch | undefined {
  const path = pathOf(req);
  const inserted = INSERTED.exec(path);
  if (inserted?.[1] && inserted[2]) {
    const tenant = tenants.byId(inserted[2]);
    return tenant ? { tenant, mountPath: `/t/${tenant.id}`, inner: `/.well-known/${inserted[1]}` } : undefined;
  }
  const byPath = PATH_TENANT.exec(path);
  if (byPath?.[1] && byPath[2]) {
    const tenant = tenants.byId(byPath[1]);
    if (!tenant || tenant.mountPath !== `/t/${tenant.id}` || !PROVIDER_PATH.test(byPath[2])) return undefined;
    return { tenant, mountPath: tenant.mountPath, inner: byPath[2] };
  }
  const byHost = tenants.byHost(req.headers.host);
  if (byHost && PROVIDER_PATH.test(path)) return { tenant: byHost, mountPath: '', inner: path };
  return undefined;
}

/** Adds the tenant's default MCP scopes when the request names none of the tenant's scopes. */
function withDefaultScope(query: string, tenant: AuthTenant): string {
  const params = new URLSearchParams(query);
  const requested = (params.get('scope') ?? '').split(' ').filter(Boolean);
  if (requested.some((s) => tenant.settings.scopes.includes(s))) return query;
  params.set('scope', [...requested, ...tenant.defaultScopes].join(' '));
  return params.toString();
}

/** The OAuth-shaped 429 of a shared-limiter refusal (DCR, token): `Retry-After` in seconds, never cached. */
function tooManyRequests(reply: FastifyReply, retryAfter: number, description: string): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(retryAfter))
    .header('content-type', 'application/json')
    .header('cache-control', 'no-store')
    .send({ error: 'too_many_requests', error_description: description });
}
