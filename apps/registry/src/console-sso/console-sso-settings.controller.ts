import { Body, Controller, Delete, Get, HttpCode, Inject, Put, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { parseInput } from '../http/parse-input';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import { checkIssuer } from '../http/check-issuer';
import { audit } from '../model/audit';
import { readSso, ssoSettingsBody, ssoView, writeSso } from './sso-settings';

const ssoResponse = z.object({ sso: z.record(z.string(), z.unknown()).nullable(), redirectUri: z.string() });

/** The workspace's console SSO setting: its own OIDC IdP for admin sign-in (owner only to change; the secret is never returned). */
@Controller('v1')
@ApiTag('Console SSO')
export class ConsoleSsoSettingsController {
  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  private redirectUri(): string {
    return `${this.ctx.config.REGISTRY_PUBLIC_URL}/console/sso/callback`;
  }

  @Get('console-sso')
  @ApiOperation({ operationId: 'getConsoleSso', summary: "The workspace's console SSO setting (never the client secret) and the redirect URI to register at the IdP", auth: 'tenant', response: ssoResponse })
  async get(@Req() req: FastifyRequest) {
    const { tenantId } = await this.ctx.auth.tenant(req);
    const s = await readSso(this.ctx.db, this.ctx.box, tenantId);
    return { sso: s ? ssoView(s, this.redirectUri()) : null, redirectUri: this.redirectUri() };
  }

  @Put('console-sso')
  @ApiOperation({
    operationId: 'putConsoleSso',
    summary: 'Set console sign-in through your OIDC IdP: issuer (discovery checked through the SSRF guard), client id, client secret (sealed at rest; omit to keep), group claim → role map, username claim, just-in-time provisioning. Audited',
    auth: 'tenant',
    body: ssoSettingsBody,
    response: ssoResponse,
  })
  async put(@Req() req: FastifyRequest, @Body() body: unknown) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    const input = parseInput(ssoSettingsBody, body, 'body');
    await checkIssuer(this.ctx.fetch, input.issuer, 'body.issuer', ['openid-configuration']);
    await this.ctx.db.tx(async (q) => {
      await writeSso(q, this.ctx.box, tenantId, input);
      await audit(q, tenantId, actor, 'sso.settings', null, { issuer: input.issuer, clientId: input.clientId, roleMap: input.roleMap, jit: input.jit, enabled: input.enabled, secretChanged: input.clientSecret !== undefined });
    });
    return this.get(req);
  }

  @Delete('console-sso')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteConsoleSso', summary: 'Turn console SSO off (SSO-made admins can no longer sign in; their rows stay). Audited', auth: 'tenant', status: 204 })
  async remove(@Req() req: FastifyRequest) {
    const { tenantId, actor } = await this.ctx.auth.tenant(req);
    await this.ctx.db.tx(async (q) => {
      await q.query('DELETE FROM registry.console_sso WHERE tenant_id = $1', [tenantId]);
      await audit(q, tenantId, actor, 'sso.settings-delete', null);
    });
  }
}
