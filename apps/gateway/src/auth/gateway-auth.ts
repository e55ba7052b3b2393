import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, McpError, encodeError } from '@switchboard/protocol';
import type { AuthDenied, AuthGranted, AuthOutcome, EdgeCall, McpTarget } from '@switchboard/mcp-http';
import type { TenantAuthSettings, TenantCatalog } from '@switchboard/catalog';
import type { GatewayConfig } from '../config/config';
import type { TenantDirectory } from '../tenants/tenant-directory';
import { BearerVerifier, type TokenExpectations, type VerifiedToken } from './bearer-verifier';
import { missingScopes } from './scope-satisfies';

const OPEN: AuthGranted = { ok: true, scopes: [] };
const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;

/** A protected tenant: its auth settings and the URLs derived from them. */
interface ProtectedTenant {
  spec: TenantAuthSettings;
  expect: TokenExpectations;
  prmUrl: string;
  challengeScope: string;
}

/**
 * The gateway as an OAuth resource server. For tenants whose `auth.protected` is set, every
 * MCP request needs a bearer token from the tenant's authorization server (apps/auth); the
 * gateway answers RFC 9728 protected-resource metadata itself (clients hit the gateway's
 * origin) and points `authorization_servers` at the tenant's issuer. Tokens in query
 * strings are never looked at. The settings are the `auth` of the tenant document the
 * directory currently serves, so a change published by the registry (protection turned on or
 * off, new scopes) applies from the next request, without a restart.
 */
export class GatewayAuth {
  private readonly verifier: BearerVerifier;
  /** Keyed by the document object: a swapped document is a new key, so nothing stale survives a change. */
  private readonly protectedCache = new WeakMap<TenantCatalog, ProtectedTenant | null>();
  private readonly grants = new WeakMap<VerifiedToken, AuthGranted>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly directory: TenantDirectory,
  ) {
    this.verifier = new BearerVerifier({ jwksCooldownMs: config.AUTH_JWKS_COOLDOWN_MS, cacheMs: config.AUTH_TOKEN_CACHE_MS });
  }

  /** The tenant's issuer: the tenant origin (host-based) or `${AUTH_PUBLIC_URL}/t/<id>`. */
  issuer(tenantId: string): string {
    if (this.config.GATEWAY_DOMAIN) return `https://${tenantId}.${this.config.GATEWAY_DOMAIN}`;
    return `${this.config.AUTH_PUBLIC_URL.replace(/\/+$/, '')}/t/${tenantId}`;
  }

  /**
   * Where this gateway fetches an issuer's keys: through AUTH_INTERNAL_URL when the issuer
   * lives under AUTH_PUBLIC_URL, since the public name (compose's `localhost:3200`, an Ingress
   * host) need not resolve from inside the deployment. Host-based issuers are fetched as named.
   */
  jwksUri(issuer: string): string {
    const pub = this.config.AUTH_PUBLIC_URL.replace(/\/+$/, '');
    const internal = this.config.AUTH_INTERNAL_URL?.replace(/\/+$/, '');
    if (internal && issuer.startsWith(`${pub}/`)) return `${internal}${issuer.slice(pub.length)}/jwks`;
    return `${issuer}/jwks`;
  }

  /** The PRM URL a client finds in the challenge: path-suffixed form of the MCP URL. */
  prmUrl(tenantId: string): string {
    const mcp = new URL(this.directory.mcpUrl(tenantId));
    return `${mcp.origin}/.well-known/oauth-protected-resource${mcp.pathname}`;
  }

  protectedTenant(tenantId: string): ProtectedTenant | undefined {
    const doc = this.directory.tenant(tenantId);
    if (!doc) return undefined;
    const hit = this.protectedCache.get(doc);
    if (hit !== undefined) return hit ?? undefined;
    const spec = doc.auth;
    if (!spec?.protected) {
      this.protectedCache.set(doc, null);
      return undefined;
    }
    const issuer = this.issuer(tenantId);
    const entry: ProtectedTenant = {
      spec,
      expect: { tenantId, issuer, audience: this.directory.mcpUrl(tenantId), jwksUri: this.jwksUri(issuer) },
      prmUrl: this.prmUrl(tenantId),
      challengeScope: (spec.defaultScopes ?? spec.scopes).join(' '),
    };
    this.protectedCache.set(doc, entry);
    return entry;
  }

  /** The mcp-http `authenticate` hook. Unprotected tenants pass synchronously (no await on the open path). */
  authenticate(req: EdgeCall, target: McpTarget): AuthOutcome | Promise<AuthOutcome> {
    const t = this.protectedTenant(target.tenantId);
    if (!t) return OPEN;
    const header = req.headers.authorization;
    if (header === undefined)
      return this.challenge(t, 401, undefined, 'Authentication required: send an OAuth access token as Authorization: Bearer');
    const m = BEARER.exec(header);
    if (!m?.[1]) return this.challenge(t, 400, 'invalid_request', 'The Authorization header must be "Bearer <token>"');
    const token = m[1];
    const hit = this.verifier.cached(token, t.expect);
    if (hit) return this.grantedFor(hit, token);
    return this.verifier.verify(token, t.expect).then((r): AuthOutcome => {
      if (!r.ok) return this.challenge(t, 401, 'invalid_token', r.description);
      return this.grantedFor(r.token, token);
    });
  }

  /** One frozen grant per verified token (the cache's hit path allocates nothing per request). */
  private grantedFor(verified: VerifiedToken, token: string): AuthGranted {
    let granted = this.grants.get(verified);
    if (!granted)
      this.grants.set(
        verified,
        (granted = Object.freeze({
          ok: true as const,
          clientId: verified.clientId,
          subject: verified.subject,
          scopes: verified.scopes,
          ...(verified.groups ? { groups: verified.groups } : {}),
          token,
        })),
      );
    return granted;
  }

  /**
   * Whether an upstream server is an enterprise connector (per-user token from the vault). Not
   * only for protected tenants: a connector of an open tenant fails closed (no user to act for)
   * instead of reaching the upstream without a credential.
   */
  isConnector(tenantId: string, serverId: string): boolean {
    return this.directory.tenant(tenantId)?.auth?.connectors[serverId] !== undefined;
  }

  /** The mcp-http `authorizeTool` hook: 403 insufficient_scope naming the scopes the tool needs. */
  authorizeTool(target: McpTarget, tool: string, auth: AuthGranted): AuthDenied | undefined {
    const t = this.protectedTenant(target.tenantId);
    const needed = t?.spec.toolScopes[tool];
    if (!t || !needed?.length) return undefined;
    if (missingScopes(auth.scopes, needed).length === 0) return undefined;
    // Name what is needed plus what the client already has, so a step-up does not lose scopes.
    const scope = [...new Set([...auth.scopes, ...needed])].join(' ');
    return this.deny(
      t,
      403,
      `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${t.prmUrl}", error_description="tool ${quoteSafe(tool)} needs ${needed.join(' ')}"`,
      `insufficient_scope: tool ${tool} needs ${needed.join(' ')}`,
    );
  }

  /** RFC 9728 metadata for a protected tenant (undefined ⇒ 404). */
  metadata(tenantId: string): Record<string, unknown> | undefined {
    const t = this.protectedTenant(tenantId);
    if (!t || !this.directory.target(tenantId)) return undefined;
    return {
      resource: t.expect.audience,
      authorization_servers: [t.expect.issuer],
      scopes_supported: t.spec.scopes,
      bearer_methods_supported: ['header'],
      resource_name: this.directory.tenant(tenantId)?.name ?? tenantId,
    };
  }

  private challenge(t: ProtectedTenant, status: number, error: string | undefined, description: string): AuthDenied {
    const parts = [`resource_metadata="${t.prmUrl}"`, `scope="${t.challengeScope}"`];
    if (error) parts.unshift(`error="${error}"`, `error_description="${quoteSafe(description)}"`);
    return this.deny(t, status, `Bearer ${parts.join(', ')}`, description);
  }

  private deny(_t: ProtectedTenant, status: number, wwwAuthenticate: string, message: string): AuthDenied {
    return {
      ok: false,
      status,
      headers: { 'www-authenticate': wwwAuthenticate, 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: encodeError(null, new McpError(ErrorCode.InvalidRequest, message)),
    };
  }

  /** Serves PRM at every path clients try: `/.well-known/oauth-protected-resource/t/<id>/mcp`, and for host-based tenants the root and `/mcp` forms. */
  registerRoutes(app: FastifyInstance): void {
    const send = async (reply: FastifyReply, tenantId: string | undefined) => {
      // A tenant fetched on use may not be held yet: fetch it first.
      const doc = tenantId && (await this.directory.ensure(tenantId)) ? this.metadata(tenantId) : undefined;
      if (!doc)
        return reply
          .code(404)
          .header('content-type', 'application/json')
          .send({ error: 'not_found', error_description: 'no protected resource here' });
      return reply.header('cache-control', 'public, max-age=300').header('access-control-allow-origin', '*').send(doc);
    };
    app.get('/.well-known/oauth-protected-resource/t/:tenant/mcp', async (req, reply) =>
      send(reply, (req.params as { tenant: string }).tenant),
    );
    const byHost = async (req: FastifyRequest, reply: FastifyReply) =>
      send(reply, (await this.directory.resolve(undefined, req.headers.host))?.tenantId);
    app.get('/.well-known/oauth-protected-resource', byHost);
    app.get('/.well-known/oauth-protected-resource/mcp', byHost);
  }
}

function quoteSafe(s: string): string {
  return s.replace(/["\\\r\n]/g, ' ');
}
