import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthTenant } from '../tenants/tenant-auth';
import type { TenantRegistry } from '../tenants/tenant-registry';
import { escapeHtml } from './html';

/** The tenant of a request to one of our own pages: `/t/:tenant/…` (path-based) or the Host (host-based). */
export function tenantOf(tenants: TenantRegistry, param: string | undefined, req: FastifyRequest): AuthTenant | undefined {
  if (param !== undefined) {
    const t = tenants.byId(param);
    return t && t.mountPath === `/t/${t.id}` ? t : undefined;
  }
  return tenants.byHost(req.headers.host);
}

/** Reads one cookie from the Cookie header. */
export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export interface CookieOptions {
  path: string;
  maxAge: number;
  secure: boolean;
}

/** A SameSite=Lax HttpOnly cookie header value (Lax: sent on the IdP's top-level redirect back, not on cross-site POSTs). */
export function cookieHeader(name: string, value: string, o: CookieOptions): string {
  return `${name}=${encodeURIComponent(value)}; Path=${o.path}; Max-Age=${o.maxAge}; HttpOnly; SameSite=Lax${o.secure ? '; Secure' : ''}`;
}

/** Sends a small, unframeable HTML page. */
export function sendPage(reply: FastifyReply, status: number, title: string, bodyHtml: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http:; frame-ancestors 'none'",
    )
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
        `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{margin-right:.5rem}</style></head>` +
        `<body>${bodyHtml}</body></html>`,
    );
}

/** An OAuth-style JSON error. */
export function sendOAuthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .header('cache-control', 'no-store')
    .send({ error, error_description: description });
}

/** The form body of a urlencoded POST as a string map (anything else ⇒ empty). */
export function formBody(req: FastifyRequest): Record<string, string> {
  const b = req.body;
  if (!b || typeof b !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(b as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}
