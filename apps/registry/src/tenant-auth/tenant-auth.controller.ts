import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, UseGuards } from '@nestjs/common';
import { idpTestAad, tenantAuthSchema, tenantSecretAad, type IdpTestResult, type IdpTestTicket, type TenantAuthSettings } from '@switchboard/catalog';
import { checkUrl, NetGuardError, type NetGuardPolicy, type GuardedFetch } from '@switchboard/net-guard';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Queryable, Database } from '../db/database';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { serverIdParams } from '../http/schemas';
import { loadTenant } from '../model/tenant-row';
import { authPublicUrl } from '../http/public-urls';
import { audit } from '../model/audit';
import { emitWebhookEvent } from '../model/webhook-events';
import { ConnectorVaultError, ConnectorVault } from '../credentials/connector-vault';
import { checkIssuer } from '../http/check-issuer';
import { checkEnterpriseIdps } from './check-enterprise-idps';
import { resolveConnectorGrant } from './connector-grant';
import { connectorBody, tenantAuthBody } from './tenant-auth-body';
import { loadTenantAuth, tenantAuthView } from '../model/tenant-auth-store';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { connectorAccountSchema, connectorLinkSchema, tenantAuthViewSchema, testSignInResultSchema, testSignInSchema } from '../docs/tenant-response-schemas';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { REGISTRY_CONFIG, NET_POLICY, GUARDED_FETCH } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { SecretBox } from '@switchboard/secret-box';
import { Publisher } from '../publishing/publisher';

const testResultBody = z.object({ result: z.string().regex(/^[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9._-]{20,16384}$/, 'must be the idp-test value the console received') }).strict();

/**
 * The tenant's OAuth settings (issue 11): protection on/off, scopes, per-tool scopes, the
 * enterprise IdP (client secret sealed at once, never shown again) and connectors per
 * upstream server. Every change is validated (fields named), the IdP issuer's discovery
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
    @Inject(ConnectorVault) private readonly vault: ConnectorVault,
    @Inject(Publisher) private readonly publisher: Publisher,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
    @Inject(GUARDED_FETCH) private readonly fetch: GuardedFetch,
  ) {}

  @Get('tenant/auth')
  @ApiOperation({
    operationId: 'getTenantAuth',
    summary: 'OAuth settings of the tenant: protection, scopes, default and per-tool scopes, the enterprise IdP and connectors per server (secrets never shown: `clientSecretSet`)',
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
    summary: 'Change OAuth settings (fields left out stay): `protected` on/off, `scopes`, `defaultScopes`, `toolScopes`, `idp` (`local`, or `oidc` with issuer, clientId, clientSecret — sealed at once; left out keeps the stored one, null removes it). A new IdP issuer is checked first: its `/.well-known/openid-configuration` is fetched through the SSRF guard and must name the same issuer. `enterpriseIdps` (IdPs whose ID-JAGs the token endpoint accepts: issuer, jwksUri, allowedClients, subjectClaim, groupsClaim, groupScopes) replaces the whole list; a new jwksUri is fetched through the SSRF guard and must be a key set. Audited; a published tenant\'s document reaches every gateway and auth replica at once (`pushed`)',
    auth: 'tenant',
    body: tenantAuthBody,
    response: tenantAuthViewSchema,
    errors: { '400': 'VALIDATION naming the field (body.idp.issuer when the discovery check fails, body.enterpriseIdps.<i>.jwksUri when the key set check fails); URL_REFUSED when the issuer or a JWKS URL is refused by the SSRF guard' },
  })
  @UseGuards(TenantGuard)
  async update(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(tenantAuthBody, body, 'body');
    const current = await loadTenantAuth(this.db, tenantId);
    const base: TenantAuthSettings = current ?? tenantAuthSchema.parse({ protected: false });
    let idp = base.idp;
    if (input.idp?.kind === 'local') idp = { kind: 'local' };
    if (input.idp?.kind === 'oidc') {
      const sameClient = base.idp.kind === 'oidc' && base.idp.issuer === input.idp.issuer && base.idp.clientId === input.idp.clientId;
      const keep = sameClient && base.idp.kind === 'oidc' ? base.idp.clientSecret : undefined;
      const secret = input.idp.clientSecret === undefined ? keep : input.idp.clientSecret === null ? undefined : this.box.seal(input.idp.clientSecret, tenantSecretAad(tenantId, 'idp'));
      idp = {
        kind: 'oidc',
        issuer: input.idp.issuer,
        clientId: input.idp.clientId,
        scopes: input.idp.scopes ?? (base.idp.kind === 'oidc' ? base.idp.scopes : ['openid', 'email', 'profile']),
        ...(secret ? { clientSecret: secret } : {}),
      };
      if (!(base.idp.kind === 'oidc' && base.idp.issuer === input.idp.issuer)) await checkIssuer(this.fetch, input.idp.issuer, 'body.idp.issuer', ['openid-configuration']);
    }
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
    const unknown = (next.defaultScopes ?? []).find((s) => !next.scopes.includes(s));
    if (unknown) {
      const field = input.defaultScopes ? 'body.defaultScopes' : 'body.scopes';
      throw new ApiError(400, 'VALIDATION', `${field}: default scope "${unknown}" is not one of the tenant's scopes`, field, { issues: [{ field, message: `default scope "${unknown}" is not one of the tenant's scopes` }] });
    }
    // A tool scope no tenant scope covers could never be granted: the tool would be unreachable.
    for (const [tool, needed] of Object.entries(next.toolScopes)) {
      const lost = needed.find((n) => !next.scopes.some((g) => g === n || n.startsWith(`${g}:`)));
      if (!lost) continue;
      const field = input.toolScopes ? `body.toolScopes.${tool}` : 'body.scopes';
      const message = `tool ${tool} needs "${lost}", which none of the tenant's scopes (${next.scopes.join(' ')}) grants`;
      throw new ApiError(400, 'VALIDATION', `${field}: ${message}`, field, { issues: [{ field, message }] });
    }
    if (input.enterpriseIdps) await checkEnterpriseIdps(this.fetch, next, base);
    await this.db.tx(async (q) => {
      await loadTenant(q, tenantId);
      await saveTenantAuth(q, tenantId, next);
      await audit(q, tenantId, actor, 'auth.update', tenantId, {
        fields: Object.keys(input),
        protected: next.protected,
        idp: next.idp.kind === 'oidc' ? { kind: 'oidc', issuer: next.idp.issuer, clientId: next.idp.clientId, secretChanged: input.idp?.kind === 'oidc' && input.idp.clientSecret !== undefined } : { kind: 'local' },
        enterpriseIdps: next.enterpriseIdps.map((e) => ({ issuer: e.issuer, allowedClients: e.allowedClients.length, groups: Object.keys(e.groupScopes).length })),
      });
    });
    return { ...tenantAuthView(await loadTenantAuth(this.db, tenantId)), pushed: await this.push(tenantId) };
  }

  @Put('servers/:id/connector')
  @ApiOperation({
    operationId: 'setConnector',
    summary:
      'Make the server an enterprise connector: calls carry each user\'s own token, obtained with this OAuth client (issuer discovery-checked through the SSRF guard; secret sealed). With `grant` the token comes from the user\'s enterprise identity first — `token_exchange` (RFC 8693 at the issuer) or `cross_app` (ID-JAG from `idpIssuer`, then JWT-bearer at the issuer) — and the linked account from the auth service\'s vault is the fallback; `grant` left out keeps the stored one, null removes it. Audited',
    auth: 'tenant',
    body: connectorBody,
    params: serverIdParams,
    response: tenantAuthViewSchema,
  })
  @UseGuards(TenantGuard)
  async setConnector(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown, @Body() body: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    const input = parseInput(connectorBody, body, 'body');
    const servers = await this.db.query('SELECT 1 FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (servers.length === 0) throw ApiError.notFound('server', id, 'params.id');
    const current = (await loadTenantAuth(this.db, tenantId))?.connectors[id];
    const issuerMetadata = await checkIssuer(this.fetch, input.issuer, 'body.issuer', ['oauth-authorization-server', 'openid-configuration']);
    const grant = await resolveConnectorGrant({ tenantId, serverId: id, input: input.grant, current: current?.grant, issuerMetadata, fetch: this.fetch, box: this.box });
    const keep = current && current.issuer === input.issuer && current.clientId === input.clientId ? current.clientSecret : undefined;
    const secret = input.clientSecret === undefined ? keep : input.clientSecret === null ? undefined : this.box.seal(input.clientSecret, tenantSecretAad(tenantId, `connector:${id}`));
    await this.db.tx(async (q) => {
      // Connectors live in the document's `auth`: make sure the tenant has one (not protected until turned on).
      await q.query('INSERT INTO registry.tenant_auth (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING', [tenantId]);
      await q.query(
        `INSERT INTO registry.tenant_connectors (tenant_id, server_id, issuer, client_id, scopes, secret, grant_settings) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (tenant_id, server_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id, scopes = EXCLUDED.scopes, secret = EXCLUDED.secret, grant_settings = EXCLUDED.grant_settings, updated_at = now()`,
        [tenantId, id, input.issuer, input.clientId, JSON.stringify(input.scopes), secret ?? null, grant ? JSON.stringify(grant) : null],
      );
      await audit(q, tenantId, actor, 'connector.set', id, {
        issuer: input.issuer,
        clientId: input.clientId,
        scopes: input.scopes,
        secretChanged: input.clientSecret !== undefined,
        grant: grant ? { kind: grant.kind, ...(grant.kind === 'cross_app' ? { idpIssuer: grant.idpIssuer, idpClientId: grant.idpClientId } : {}) } : null,
      });
    });
    return { ...tenantAuthView(await loadTenantAuth(this.db, tenantId)), pushed: await this.push(tenantId) };
  }

  @Delete('servers/:id/connector')
  @ApiOperation({
    operationId: 'removeConnector',
    summary: 'Stop treating the server as a connector (audited); 409 CONFLICT while it is a published oauth_user server',
    auth: 'tenant',
    params: serverIdParams,
    response: tenantAuthViewSchema,
  })
  @UseGuards(TenantGuard)
  async removeConnector(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    // A published `oauth_user` server without its connector would be called with no credential at all.
    const published = await this.db.query(
      "SELECT 1 FROM registry.servers s JOIN registry.publications p ON p.tenant_id = s.tenant_id AND p.server_id = s.id WHERE s.tenant_id = $1 AND s.id = $2 AND s.auth_mode = 'oauth_user' LIMIT 1",
      [tenantId, id],
    );
    if (published.length > 0) throw new ApiError(409, 'CONFLICT', `params.id: server "${id}" is a published per-user OAuth server; unpublish it before removing its connector`, 'params.id');
    const removed = await this.db.tx(async (q) => {
      const rows = await q.query('DELETE FROM registry.tenant_connectors WHERE tenant_id = $1 AND server_id = $2 RETURNING server_id', [tenantId, id]);
      if (rows.length > 0) {
        await audit(q, tenantId, actor, 'connector.remove', id);
        await emitWebhookEvent(q, tenantId, 'connector.unlinked', { serverId: id, by: actor, what: 'connector' });
      }
      return rows.length > 0;
    });
    if (!removed) throw ApiError.notFound('connector of server', id, 'params.id');
    return { ...tenantAuthView(await loadTenantAuth(this.db, tenantId)), pushed: await this.push(tenantId) };
  }

  /**
   * Starts linking the tenant admin's own upstream account for a connector (issue 11,
   * `oauth_user` servers): a one-time URL at the auth service (10 min) that the admin opens in
   * a browser; the token lands sealed in auth's vault and is used only to discover the server.
   */
  @Post('servers/:id/connector/link')
  @ApiOperation({
    operationId: 'startConnectorLink',
    summary: 'Start linking the tenant admin\'s own upstream account for the server\'s connector: returns a one-time linkUrl (at the auth service, expiresIn seconds) to open in a browser; the token is sealed in auth\'s vault, refreshed there, and used only to discover oauth_user servers. 409 CONNECTOR_NOT_CONFIGURED without a connector; 503 UNAVAILABLE when auth is unreachable. Audited',
    auth: 'tenant',
    params: serverIdParams,
    response: connectorLinkSchema,
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async startLink(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    const link = await vaultCall(() => this.vault.startLink(this.db, tenantId, id));
    await audit(this.db, tenantId, actor, 'connector.link_started', id);
    return { serverId: id, ...link };
  }

  /** Whether the tenant admin's upstream account is linked for this server's connector (no token material). */
  @Get('servers/:id/connector/account')
  @ApiOperation({
    operationId: 'getConnectorAccount',
    summary: 'Whether the tenant admin\'s upstream account is linked for this connector (linked, expiresAt, refreshable, updatedAt; never a token)',
    auth: 'tenant',
    params: serverIdParams,
    response: connectorAccountSchema,
  })
  @UseGuards(TenantGuard)
  async account(@Tenant() { tenantId }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    return { serverId: id, ...(await vaultCall(() => this.vault.account(tenantId, id))) };
  }

  /** Unlinks the tenant admin's upstream account (discovery of an `oauth_user` server then needs a new link). */
  @Delete('servers/:id/connector/account')
  @ApiOperation({ operationId: 'unlinkConnectorAccount', summary: 'Unlink the tenant admin\'s upstream account (404 when none is linked). Audited', auth: 'tenant', params: serverIdParams })
  @UseGuards(TenantGuard)
  async unlinkAccount(@Tenant() { tenantId, actor }: TenantPrincipal, @Param() params: unknown) {
    const { id } = parseInput(serverIdParams, params, 'params');
    await this.requireServer(tenantId, id);
    const unlinked = await vaultCall(() => this.vault.unlink(tenantId, id));
    if (!unlinked) throw new ApiError(404, 'NOT_FOUND', `params.id: no account is linked for server "${id}"`, 'params.id');
    await this.db.tx(async (q) => {
      await audit(q, tenantId, actor, 'connector.unlink', id);
      await emitWebhookEvent(q, tenantId, 'connector.unlinked', { serverId: id, by: actor, what: 'account' });
    });
    return { serverId: id, unlinked: true };
  }

  private async requireServer(tenantId: string, id: string): Promise<void> {
    const servers = await this.db.query('SELECT 1 FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    if (servers.length === 0) throw ApiError.notFound('server', id, 'params.id');
  }

  /**
   * Starts a "test sign-in" of the saved IdP: the issuer's discovery document and the endpoints
   * it names pass the SSRF guard, then a ticket (IdP, console return URL, 5 minutes) sealed with
   * SECRETS_KEY goes to the browser, which takes it to the tenant's authorization server.
   */
  @Post('tenant/auth/test-sign-in')
  @ApiOperation({
    operationId: 'startTestSignIn',
    summary: 'Start a test sign-in of the saved OIDC IdP (admin): the discovery document and its endpoints pass the SSRF guard, then `url` (open it in the browser; valid 5 minutes) runs an authorization-code + PKCE flow at the tenant\'s live authorization server and returns to /console/auth with `#idp-test=<result>`. 409 when no OIDC IdP is saved or the workspace is not published. Audited',
    auth: 'tenant',
    response: testSignInSchema,
    errors: { '409': 'CONFLICT: no OIDC IdP saved, workspace not published, or the auth service URL is unknown (AUTH_PUBLIC_URL)', '400': 'VALIDATION / URL_REFUSED naming idp.issuer' },
  })
  @HttpCode(200)
  @UseGuards(TenantGuard)
  async startTest(@Tenant() { tenantId, actor }: TenantPrincipal) {
    const auth = await loadTenantAuth(this.db, tenantId);
    const idp = auth?.idp;
    if (idp?.kind !== 'oidc') throw new ApiError(409, 'CONFLICT', 'idp: save an OpenID Connect provider first (idp.kind is local)', 'idp');
    const tenant = await loadTenant(this.db, tenantId);
    if (!tenant.current_version) throw new ApiError(409, 'CONFLICT', 'publish the workspace first: the test signs in through its live authorization server', 'idp');
    const authUrl = authPublicUrl(this.config);
    if (!authUrl && !this.config.GATEWAY_DOMAIN) throw new ApiError(409, 'CONFLICT', 'the registry does not know the auth service: set AUTH_PUBLIC_URL (or CONSOLE_ISSUER)', 'idp');
    const doc = await checkIssuer(this.fetch, idp.issuer, 'idp.issuer', ['openid-configuration']);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
      const url = doc[key];
      if (typeof url !== 'string') continue;
      try {
        await checkUrl(url, this.policy);
      } catch (err) {
        if (err instanceof NetGuardError) throw new ApiError(400, 'URL_REFUSED', `idp.issuer: the discovery document's ${key} is refused: ${err.message}`, 'idp.issuer', undefined, { cause: err });
        throw new ApiError(400, 'VALIDATION', `idp.issuer: the discovery document's ${key} is not a URL`, 'idp.issuer');
      }
    }
    const id = randomBytes(16).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + TEST_TTL_S;
    const ticket: IdpTestTicket = { tenant: tenantId, issuer: idp.issuer, clientId: idp.clientId, returnTo: `${this.config.REGISTRY_PUBLIC_URL}/console/auth`, exp };
    const sealed = this.box.seal(JSON.stringify(ticket), idpTestAad(tenantId, 'ticket', id));
    const issuer = this.config.GATEWAY_DOMAIN ? `https://${tenantId}.${this.config.GATEWAY_DOMAIN}` : `${authUrl}/t/${tenantId}`;
    await audit(this.db, tenantId, actor, 'auth.test_sign_in.start', tenantId, { id, issuer: idp.issuer, clientId: idp.clientId });
    return { id, url: `${issuer}/federation/test?ticket=${id}.${sealed}`, expiresAt: new Date(exp * 1000).toISOString(), redirectUri: `${issuer}/federation/callback` };
  }

  /** Opens what the authorization server sent back to the console (`#idp-test=<id>.<sealed>`): the ID-token claims, or the IdP's error. */
  @Post('tenant/auth/test-sign-in/result')
  @ApiOperation({
    operationId: 'getTestSignInResult',
    summary: 'Open a test sign-in result (`{ result }` = the `idp-test` fragment value): `{ ok: true, issuer, claims }` (the ID-token claims) or `{ ok: false, issuer, error, errorDescription }` (the IdP\'s error). Audited',
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
      throw new ApiError(400, 'VALIDATION', 'body.result: not a test sign-in result of this workspace (tampered, or of another workspace)', 'body.result');
    }
    if (typeof out.exp !== 'number' || out.exp < Date.now() / 1000) throw new ApiError(400, 'VALIDATION', 'body.result: this test sign-in result expired; run the test again', 'body.result');
    const sub = out.ok && typeof out.claims.sub === 'string' ? out.claims.sub : undefined;
    await audit(this.db, tenantId, actor, 'auth.test_sign_in.result', tenantId, { id, ok: out.ok, issuer: out.issuer, ...(out.ok ? { sub } : { error: out.error }) });
    return out.ok ? { id, ok: true, issuer: out.issuer, claims: out.claims } : { id, ok: false, issuer: out.issuer, error: out.error, errorDescription: out.errorDescription };
  }

  /** Re-pushes a published tenant's document (settings changed, catalog not); null before the first publish. */
  private async push(tenantId: string): Promise<'ok' | 'unavailable' | null> {
    const tenant = await loadTenant(this.db, tenantId);
    return tenant.current_version ? this.publisher.push(tenantId) : null;
  }
}

/** A test sign-in's ticket and result live this long (seconds). */
const TEST_TTL_S = 300;

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

/** Vault failures as admin API errors: no connector / not linked ⇒ 409, auth unreachable ⇒ 503. */
async function vaultCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ConnectorVaultError)) throw err;
    if (err.code === 'UNAVAILABLE') throw new ApiError(503, 'UNAVAILABLE', err.message);
    throw new ApiError(409, err.code, `params.id: ${err.message}`, 'params.id');
  }
}
