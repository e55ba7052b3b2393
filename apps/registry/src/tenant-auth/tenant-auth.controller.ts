import { Body, Controller, Get, HttpCode, Inject, Patch, Post, UseGuards } from '@nestjs/common';
import {
  idpTestAad,
  tenantAuthSchema,
  tenantSecretAad,
  type IdpTestResult,
  type IdpTestTicket,
  type TenantAuthSettings,
} from '@switchboard/catalog';
import { checkUrl, NetGuardError, type NetGuardPolicy, type GuardedFetch } from '@switchboard/net-guard';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Queryable, Database } from '../db/database';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { loadTenant } from '../model/tenant-row';
import { authPublicUrl } from '../http/public-urls';
import { audit } from '../model/audit';
import { checkIssuer } from '../http/check-issuer';
import { checkEnterpriseIdps } from './check-enterprise-idps';
import { pushIfPublished } from './push-if-published';
import { tenantAuthBody, type TenantAuthInput } from './tenant-auth-body';
import { loadTenantAuth, tenantAuthView } from '../model/tenant-auth-store';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { tenantAuthViewSchema, testSignInResultSchema, testSignInSchema } from '../docs/tenant-response-schemas';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { REGISTRY_CONFIG, NET_POLICY, GUARDED_FETCH } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { SecretBox } from '@switchboard/secret-box';
import { Publisher } from '../publishing/publisher';

const testResultBody = z
  .object({
    result: z.string().regex(/^[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9._-]{20,16384}$/, 'must be the idp-test value the console received'),
  })
  .strict();

/**
 * The tenant's OAuth settings (issue 11): protection on/off, scopes, per-tool scopes, the
 * enterprise IdP (client secret sealed at once, never shown again) and its test sign-in
 * (connectors per upstream server: connector.controller.ts). Every change is validated (fields named), the IdP issuer's discovery
 * document is fetched through the SSRF guard before saving, the change is audited, and a
 * published tenant's document is re-pushed so every gateway and auth replica swaps it.
 */
@Controller('v1')
@ApiTag('Tenant auth')
export class TenantAuthController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(Publisher) private readonly publisher: Publisher,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
    @Inject(GUARDED_FETCH) private readonly fetch: GuardedFetch,
  ) {}

  @Get('tenant/auth')
  @ApiOperation({
    operationId: 'getTenantAuth',
    summary:
      'OAuth settings of the tenant: protection, scopes, default and per-tool scopes, the enterprise IdP and connectors per server (secrets never shown: `clientSecretSet`)',
    auth: 'tenant',
    response: tenantAuthViewSchema,
  })
  @UseGuards(TenantGuard)
  async get(@Tenant() { tenantId }: TenantPrincipal) {
    return tenantAuthView(await loadTenantAuth(this.db, tenantId));
  }

  @Patch('tenant/auth')
  @ApiOperation({
    operationId: 'updateTenantAuth',
    summary:
      "Change OAuth settings (fields left out stay): `protected` on/off, `scopes`, `defaultScopes`, `toolScopes`, `idp` (`local`, or `oidc` with issuer, clientId, clientSecret — sealed at once; left out keeps the stored one, null removes it). A new IdP issuer is checked first: its `/.well-known/openid-configuration` is fetched through the SSRF guard and must name the same issuer. `enterpriseIdps` (IdPs whose ID-JAGs the token endpoint accepts: issuer, jwksUri, allowedClients, subjectClaim, groupsClaim, groupScopes) replaces the whole list; a new jwksUri is fetched through the SSRF guard and must be a key set. Audited; a published tenant's document reaches every gateway and auth replica at once (`pushed`)",
    auth: 'tenant',
    body: tenantAuthBody,
    response: tenantAuthViewSchema,
    errors: {
      '400':
        'VALIDATION naming the field (body.idp.issuer when the discovery check fails, body.enterpriseIdps.<i>.jwksUri when the key set check fails); URL_REFUSED when the issuer or a JWKS URL is refused by the SSRF guard',
    },
  })
  @UseGuards(TenantGuard)
  async update(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(tenantAuthBody, body, 'body');
    const current = await loadTenantAuth(this.db, tenantId);
    const base: TenantAuthSettings = current ?? tenantAuthSchema.parse({ protected: false });
    const idp = await this.nextIdp(tenantId, base, input);
    const next: TenantAuthSettings = {
      ...base,
      ...(input.protected !== undefined ? { protected: input.protected } : {}),
      ...(input.scopes ? { scopes: input.scopes } : {}),
      ...(input.toolScopes ? { toolScopes: input.toolScopes } : {}),
      ...(input.allowPrivateUseRedirects !== undefined ? { allowPrivateUseRedirects: input.allowPrivateUseRedirects } : {}),
      ...(input.enterpriseIdps ? { enterpriseIdps: input.enterpriseIdps } : {}),
      idp,
    };
    if (input.defaultScopes === null) delete next.defaultScopes;
    else if (input.defaultScopes) next.defaultScopes = input.defaultScopes;
    checkScopes(next, input);
    if (input.enterpriseIdps) await checkEnterpriseIdps(this.fetch, next, base);
    await this.db.tx(async (q) => {
      await loadTenant(q, tenantId);
      await saveTenantAuth(q, tenantId, next);
      await audit(q, tenantId, actor, 'auth.update', tenantId, updateAudit(input, next));
    });
    return { ...tenantAuthView(await loadTenantAuth(this.db, tenantId)), pushed: await this.push(tenantId) };
  }

  /**
   * Starts a "test sign-in" of the saved IdP: the issuer's discovery document and the endpoints
   * it names pass the SSRF guard, then a ticket (IdP, console return URL, 5 minutes) sealed with
   * SECRETS_KEY goes to the browser, which takes it to the tenant's authorization server.
   */
  @Post('tenant/auth/test-sign-in')
  @ApiOperation({
    operationId: 'startTestSignIn',
    summary:
      "Start a test sign-in of the saved OIDC IdP (admin): the discovery document and its endpoints pass the SSRF guard, then `url` (open it in the browser; valid 5 minutes) runs an authorization-code + PKCE flow at the tenant's live authorization server and returns to /console/auth with `#idp-test=<result>`. 409 when no OIDC IdP is saved or the workspace is not published. Audited",
    auth: 'tenant',
    response: testSignInSchema,
    errors: {
      '409': 'CONFLICT: no OIDC IdP saved, workspace not published, or the auth service URL is unknown (AUTH_PUBLIC_URL)',
      '400': 'VALIDATION / URL_REFUSED naming idp.issuer',
    },
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async startTest(@Tenant() { tenantId, actor }: TenantPrincipal) {
    const auth = await loadTenantAuth(this.db, tenantId);
    const idp = auth?.idp;
    if (idp?.kind !== 'oidc') throw new ApiError(409, 'CONFLICT', 'idp: save an OpenID Connect provider first (idp.kind is local)', 'idp');
    const tenant = await loadTenant(this.db, tenantId);
    if (!tenant.current_version)
      throw new ApiError(409, 'CONFLICT', 'publish the workspace first: the test signs in through its live authorization server', 'idp');
    const authUrl = authPublicUrl(this.config);
    if (!authUrl && !this.config.GATEWAY_DOMAIN)
      throw new ApiError(409, 'CONFLICT', 'the registry does not know the auth service: set AUTH_PUBLIC_URL (or CONSOLE_ISSUER)', 'idp');
    const doc = await checkIssuer(this.fetch, idp.issuer, 'idp.issuer', ['openid-configuration']);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
      const url = doc[key];
      if (typeof url !== 'string') continue;
      try {
        await checkUrl(url, this.policy);
      } catch (err) {
        if (err instanceof NetGuardError)
          throw new ApiError(
            400,
            'URL_REFUSED',
            `idp.issuer: the discovery document's ${key} is refused: ${err.message}`,
            'idp.issuer',
            undefined,
            { cause: err },
          );
        throw new ApiError(400, 'VALIDATION', `idp.issuer: the discovery document's ${key} is not a URL`, 'idp.issuer');
      }
    }
    const id = randomBytes(16).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + TEST_TTL_S;
    const ticket: IdpTestTicket = {
      tenant: tenantId,
      issuer: idp.issuer,
      clientId: idp.clientId,
      returnTo: `${this.config.REGISTRY_PUBLIC_URL}/console/auth`,
      exp,
    };
    const sealed = this.box.seal(JSON.stringify(ticket), idpTestAad(tenantId, 'ticket', id));
    const issuer = this.config.GATEWAY_DOMAIN ? `https://${tenantId}.${this.config.GATEWAY_DOMAIN}` : `${authUrl}/t/${tenantId}`;
    await audit(this.db, tenantId, actor, 'auth.test_sign_in.start', tenantId, { id, issuer: idp.issuer, clientId: idp.clientId });
    return {
      id,
      url: `${issuer}/federation/test?ticket=${id}.${sealed}`,
      expiresAt: new Date(exp * 1000).toISOString(),
      redirectUri: `${issuer}/federation/callback`,
    };
  }

  /** Opens what the authorization server sent back to the console (`#idp-test=<id>.<sealed>`): the ID-token claims, or the IdP's error. */
  @Post('tenant/auth/test-sign-in/result')
  @ApiOperation({
    operationId: 'getTestSignInResult',
    summary:
      "Open a test sign-in result (`{ result }` = the `idp-test` fragment value): `{ ok: true, issuer, claims }` (the ID-token claims) or `{ ok: false, issuer, error, errorDescription }` (the IdP's error). Audited",
    auth: 'tenant',
    body: testResultBody,
    response: testSignInResultSchema,
    errors: { '400': 'VALIDATION naming body.result: tampered, of another workspace, or expired' },
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async testResult(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const { result } = parseInput(testResultBody, body, 'body');
    const dot = result.indexOf('.');
    const id = result.slice(0, dot);
    let out: IdpTestResult;
    try {
      out = JSON.parse(this.box.open(result.slice(dot + 1), idpTestAad(tenantId, 'result', id))) as IdpTestResult;
    } catch {
      throw new ApiError(
        400,
        'VALIDATION',
        'body.result: not a test sign-in result of this workspace (tampered, or of another workspace)',
        'body.result',
      );
    }
    if (typeof out.exp !== 'number' || out.exp < Date.now() / 1000)
      throw new ApiError(400, 'VALIDATION', 'body.result: this test sign-in result expired; run the test again', 'body.result');
    const sub = out.ok && typeof out.claims.sub === 'string' ? out.claims.sub : undefined;
    await audit(this.db, tenantId, actor, 'auth.test_sign_in.result', tenantId, {
      id,
      ok: out.ok,
      issuer: out.issuer,
      ...(out.ok ? { sub } : { error: out.error }),
    });
    return out.ok
      ? { id, ok: true, issuer: out.issuer, claims: out.claims }
      : { id, ok: false, issuer: out.issuer, error: out.error, errorDescription: out.errorDescription };
  }

  /** The IdP the update leaves: a new client secret sealed at once, a new OIDC issuer's discovery checked before saving. */
  private async nextIdp(tenantId: string, base: TenantAuthSettings, input: TenantAuthInput): Promise<TenantAuthSettings['idp']> {
    let idp = base.idp;
    if (input.idp?.kind === 'local') idp = { kind: 'local' };
    if (input.idp?.kind === 'oidc') {
      const sameClient = base.idp.kind === 'oidc' && base.idp.issuer === input.idp.issuer && base.idp.clientId === input.idp.clientId;
      const keep = sameClient && base.idp.kind === 'oidc' ? base.idp.clientSecret : undefined;
      const secret =
        input.idp.clientSecret === undefined
          ? keep
          : input.idp.clientSecret === null
            ? undefined
            : this.box.seal(input.idp.clientSecret, tenantSecretAad(tenantId, 'idp'));
      idp = {
        kind: 'oidc',
        issuer: input.idp.issuer,
        clientId: input.idp.clientId,
        scopes: input.idp.scopes ?? (base.idp.kind === 'oidc' ? base.idp.scopes : ['openid', 'email', 'profile']),
        ...(secret ? { clientSecret: secret } : {}),
      };
      if (!(base.idp.kind === 'oidc' && base.idp.issuer === input.idp.issuer))
        await checkIssuer(this.fetch, input.idp.issuer, 'body.idp.issuer', ['openid-configuration']);
    }
    return idp;
  }

  private push(tenantId: string): Promise<'ok' | 'unavailable' | null> {
    return pushIfPublished(this.db, this.publisher, tenantId);
  }
}

/** A test sign-in's ticket and result live this long (seconds). */
const TEST_TTL_S = 300;

/** Default scopes must be tenant scopes, and every tool scope must be grantable by one. */
function checkScopes(next: TenantAuthSettings, input: TenantAuthInput): void {
  const unknown = (next.defaultScopes ?? []).find((s) => !next.scopes.includes(s));
  if (unknown) {
    const field = input.defaultScopes ? 'body.defaultScopes' : 'body.scopes';
    throw new ApiError(400, 'VALIDATION', `${field}: default scope "${unknown}" is not one of the tenant's scopes`, field, {
      issues: [{ field, message: `default scope "${unknown}" is not one of the tenant's scopes` }],
    });
  }
  // A tool scope no tenant scope covers could never be granted: the tool would be unreachable.
  for (const [tool, needed] of Object.entries(next.toolScopes)) {
    const lost = needed.find((n) => !next.scopes.some((g) => g === n || n.startsWith(`${g}:`)));
    if (!lost) continue;
    const field = input.toolScopes ? `body.toolScopes.${tool}` : 'body.scopes';
    const message = `tool ${tool} needs "${lost}", which none of the tenant's scopes (${next.scopes.join(' ')}) grants`;
    throw new ApiError(400, 'VALIDATION', `${field}: ${message}`, field, { issues: [{ field, message }] });
  }
}

/** The audit entry of an update: what changed, never a secret. */
function updateAudit(input: TenantAuthInput, next: TenantAuthSettings): Record<string, unknown> {
  return {
    fields: Object.keys(input),
    protected: next.protected,
    idp:
      next.idp.kind === 'oidc'
        ? {
            kind: 'oidc',
            issuer: next.idp.issuer,
            clientId: next.idp.clientId,
            secretChanged: input.idp?.kind === 'oidc' && input.idp.clientSecret !== undefined,
          }
        : { kind: 'local' },
    enterpriseIdps: next.enterpriseIdps.map((e) => ({
      issuer: e.issuer,
      allowedClients: e.allowedClients.length,
      groups: Object.keys(e.groupScopes).length,
    })),
  };
}

async function saveTenantAuth(q: Queryable, tenantId: string, a: TenantAuthSettings): Promise<void> {
  const oidc = a.idp.kind === 'oidc' ? a.idp : undefined;
  await q.query(
    `INSERT INTO registry.tenant_auth (tenant_id, protected, scopes, default_scopes, tool_scopes, allow_private_use_redirects, idp_kind, idp_issuer, idp_client_id, idp_scopes, idp_secret, enterprise_idps)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (tenant_id) DO UPDATE SET protected = EXCLUDED.protected, scopes = EXCLUDED.scopes, default_scopes = EXCLUDED.default_scopes, tool_scopes = EXCLUDED.tool_scopes,
       allow_private_use_redirects = EXCLUDED.allow_private_use_redirects, idp_kind = EXCLUDED.idp_kind, idp_issuer = EXCLUDED.idp_issuer, idp_client_id = EXCLUDED.idp_client_id,
       idp_scopes = EXCLUDED.idp_scopes, idp_secret = EXCLUDED.idp_secret, enterprise_idps = EXCLUDED.enterprise_idps, updated_at = now()`,
    [
      tenantId,
      a.protected,
      JSON.stringify(a.scopes),
      a.defaultScopes ? JSON.stringify(a.defaultScopes) : null,
      JSON.stringify(a.toolScopes),
      a.allowPrivateUseRedirects,
      a.idp.kind,
      oidc?.issuer ?? null,
      oidc?.clientId ?? null,
      oidc ? JSON.stringify(oidc.scopes) : null,
      oidc?.clientSecret ?? null,
      JSON.stringify(a.enterpriseIdps),
    ],
  );
}
