import { Controller, Get, Header, Headers, NotFoundException, Param } from '@nestjs/common';
import { LATEST_LEGACY_VERSION, SUPPORTED_VERSIONS } from '@switchboard/protocol';
import { GatewayRuntime } from '../gateway-runtime';

/**
 * Per-tenant discovery documents: a server card at `/.well-known/mcp.json` (SEP-2127 draft
 * shape; optional and unstable in the spec, so kept small) and an `llms.txt` that tells an
 * agent or a person what the endpoint offers and how to connect. For an OAuth-protected tenant
 * both say only how to connect and sign in — never which tools, prompts or resources it has
 * (issue 18: they listed every tool while tools/list needed a token).
 */
@Controller()
export class WellKnownController {
  constructor(private readonly runtime: GatewayRuntime) {}

  @Get('t/:tenant/.well-known/mcp.json')
  @Header('cache-control', 'public, max-age=300')
  async cardByPath(@Param('tenant') tenant: string): Promise<Record<string, unknown>> {
    await this.runtime.directory.ensure(tenant);
    return this.card(tenant);
  }

  @Get('.well-known/mcp.json')
  @Header('cache-control', 'public, max-age=300')
  async cardByHost(@Headers('host') host: string | undefined): Promise<Record<string, unknown>> {
    return this.card(await this.tenantFromHost(host));
  }

  @Get('t/:tenant/llms.txt')
  @Header('content-type', 'text/plain; charset=utf-8')
  @Header('x-content-type-options', 'nosniff')
  async llmsByPath(@Param('tenant') tenant: string): Promise<string> {
    await this.runtime.directory.ensure(tenant);
    return this.llms(tenant);
  }

  @Get('llms.txt')
  @Header('content-type', 'text/plain; charset=utf-8')
  @Header('x-content-type-options', 'nosniff')
  async llmsByHost(@Headers('host') host: string | undefined): Promise<string> {
    return this.llms(await this.tenantFromHost(host));
  }

  /** The tenant a Host names, fetched when not held (a fetched-on-use tenant). */
  private async tenantFromHost(host: string | undefined): Promise<string> {
    const target = await this.runtime.directory.resolve(undefined, host);
    if (!target) throw new NotFoundException({ error: 'not_found', message: 'No tenant is served at this host' });
    return target.tenantId;
  }

  private card(tenantId: string): Record<string, unknown> {
    const target = this.runtime.directory.target(tenantId);
    const tenant = this.runtime.directory.tenant(tenantId);
    if (!target || !tenant) throw new NotFoundException({ error: 'not_found', message: `Unknown tenant: ${tenantId}` });
    const snap = target.catalog.snapshot;
    const remotes = [{ type: 'streamable-http', url: this.runtime.directory.mcpUrl(tenantId) }];
    const guarded = this.runtime.auth.protectedTenant(tenantId);
    if (guarded) {
      // A protected tenant's catalog is for signed-in clients only (tools/list needs a token):
      // the card says how to connect and sign in, nothing about tools, prompts or resources.
      return {
        $schema: 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json',
        name: snap.server.name,
        title: tenant.name,
        description: tenant.description,
        protocolVersions: SUPPORTED_VERSIONS,
        remotes,
        authentication: { required: true, protectedResourceMetadata: guarded.prmUrl },
      };
    }
    return {
      $schema: 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json',
      name: snap.server.name,
      title: tenant.name,
      description: tenant.description,
      version: snap.version.slice(0, 12),
      protocolVersions: SUPPORTED_VERSIONS,
      remotes,
      capabilities: target.catalog.capabilities,
      tools: snap.tools
        .filter((t) => !t.unlisted)
        .map((t) => ({ name: t.definition.name, title: t.definition.title ?? t.definition.annotations?.title })),
      resources: snap.resources.length,
      prompts: snap.prompts.map((p) => p.definition.name),
    };
  }

  private llms(tenantId: string): string {
    const target = this.runtime.directory.target(tenantId);
    const tenant = this.runtime.directory.tenant(tenantId);
    if (!target || !tenant) throw new NotFoundException({ error: 'not_found', message: `Unknown tenant: ${tenantId}` });
    const url = this.runtime.directory.mcpUrl(tenantId);
    const snap = target.catalog.snapshot;
    const lines = [
      `# ${tenant.name}`,
      '',
      `> ${tenant.description ?? 'An MCP server hosted on Switchboard.'}`,
      '',
      `MCP endpoint (Streamable HTTP, protocol ${SUPPORTED_VERSIONS[0]} and ${LATEST_LEGACY_VERSION} down to 2024-11-05): ${url}`,
      '',
      'Connect from Claude Code:',
      '',
      `    claude mcp add --transport http ${tenant.id} ${url}`,
      '',
    ];
    if (this.runtime.auth.protectedTenant(tenantId)) {
      lines.push('This endpoint requires OAuth sign-in; its tools are listed to signed-in clients (tools/list).');
      return lines.join('\n') + '\n';
    }
    lines.push(
      '## Tools',
      '',
      ...snap.tools
        .filter((t) => !t.unlisted)
        .map(
          (t) =>
            `- ${t.definition.name}: ${oneLine(t.definition.title ?? t.definition.annotations?.title ?? '')}${t.definition.description ? ` — ${oneLine(t.definition.description)}` : ''}`,
        ),
    );
    if (snap.prompts.length)
      lines.push(
        '',
        '## Prompts',
        '',
        ...snap.prompts.map((p) => `- ${p.definition.name}${p.definition.description ? `: ${oneLine(p.definition.description)}` : ''}`),
      );
    if (snap.resources.length)
      lines.push('', '## Resources', '', ...snap.resources.map((r) => `- ${r.definition.uri} (${r.definition.name})`));
    return lines.join('\n') + '\n';
  }
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}
