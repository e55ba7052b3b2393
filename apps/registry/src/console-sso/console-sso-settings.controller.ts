import { Body, Controller, Delete, Get, HttpCode, Inject, Put, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { parseInput } from '../http/parse-input';
import { checkIssuer } from '../http/check-issuer';
import { audit } from '../model/audit';
import { readSso, ssoSettingsBody, ssoView, writeSso } from './sso-settings';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';
import { REGISTRY_CONFIG, GUARDED_FETCH } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import { SecretBox } from '@switchboard/secret-box';
import type { GuardedFetch } from '@switchboard/net-guard';

const ssoResponse = z.object({ sso: z.record(z.string(), z.unknown()).nullable(), redirectUri: z.string() });

/** The workspace's console SSO setting: its own OIDC IdP for admin sign-in (owner only to change; the secret is never returned). */
@Controller('v1')
@ApiTag('Console SSO')
export class ConsoleSsoSettingsController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(GUARDED_FETCH) private readonly fetch: GuardedFetch,
  ) {}

  private redirectUri(): string {
    return `${this.config.REGISTRY_PUBLIC_URL}/console/sso/callback`;
  }

  @Get('console-sso')
  @ApiOperation({
    operationId: 'getConsoleSso',
    summary: "The workspace's console SSO setting (never the client secret) and the redirect URI to register at the IdP",
    auth: 'tenant',
    response: ssoResponse,
  })
  @UseGuards(TenantGuard)
  async get(@Tenant() { tenantId }: TenantPrincipal) {
    const s = await readSso(this.db, this.box, tenantId);
    return { sso: s ? ssoView(s, this.redirectUri()) : null, redirectUri: this.redirectUri() };
  }

  @Put('console-sso')
  @ApiOperation({
    operationId: 'putConsoleSso',
    summary:
      'Set console sign-in through your OIDC IdP: issuer (discovery checked through the SSRF guard), client id, client secret (sealed at rest; omit to keep), group claim → role map, username claim, just-in-time provisioning. Audited',
    auth: 'tenant',
    body: ssoSettingsBody,
    response: ssoResponse,
  })
  @UseGuards(TenantGuard)
  async put(@Tenant() principal: TenantPrincipal, @Body() body: unknown) {
    const { tenantId, actor } = principal;
    const input = parseInput(ssoSettingsBody, body, 'body');
    await checkIssuer(this.fetch, input.issuer, 'body.issuer', ['openid-configuration']);
    await this.db.tx(async (q) => {
      await writeSso(q, this.box, tenantId, input);
      await audit(q, tenantId, actor, 'sso.settings', null, {
        issuer: input.issuer,
        clientId: input.clientId,
        roleMap: input.roleMap,
        jit: input.jit,
        enabled: input.enabled,
        secretChanged: input.clientSecret !== undefined,
      });
    });
    return this.get(principal);
  }

  @Delete('console-sso')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteConsoleSso',
    summary: 'Turn console SSO off (SSO-made admins can no longer sign in; their rows stay). Audited',
    auth: 'tenant',
    status: 204,
  })
  @UseGuards(TenantGuard)
  async remove(@Tenant() { tenantId, actor }: TenantPrincipal) {
    await this.db.tx(async (q) => {
      await q.query('DELETE FROM registry.console_sso WHERE tenant_id = $1', [tenantId]);
      await audit(q, tenantId, actor, 'sso.settings-delete', null);
    });
  }
}
