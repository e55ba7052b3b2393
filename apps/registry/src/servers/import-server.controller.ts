import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { checkUrl, NetGuardError, type NetGuardPolicy, type GuardedFetch } from '@switchboard/net-guard';
import { z } from 'zod';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { serverChangedResponse } from '../docs/route-responses';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { SERVER_ID } from '../http/schemas';
import { ServersController } from './servers.controller';
import { audit } from '../model/audit';
import { fetchServerJson } from './fetch-server-json';
import { importServerBody } from './import-server-body';
import { remoteFromServerJson } from './remote-from-server-json';
import { serverJsonProblem } from '../model/server-json-schema';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';
import { REGISTRY_CONFIG, NET_POLICY, GUARDED_FETCH } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';

const importedResponse = serverChangedResponse.extend({
  registry: z
    .object({ name: z.string(), version: z.string(), remote: z.number().int(), url: z.string() })
    .describe('The registry entry the server was registered from'),
});

/** The default server id from a registry name: the part after the slash, lower-cased, as a valid id. */
function idFromName(name: string): string | undefined {
  const id = (name.split('/')[1] ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 32);
  return SERVER_ID.test(id) ? id : undefined;
}

/** Registering an upstream from an MCP Registry `server.json` (remote servers only). */
@Controller('v1/servers')
@ApiTag('Servers')
export class ImportServerController {
  constructor(
    /** Registration itself is the plain `POST /v1/servers` path (SSRF check, sealing, audit, discovery), reused as is. */
    @Inject(ServersController) private readonly servers: ServersController,
    @Inject(Database) private readonly db: Database,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
    @Inject(GUARDED_FETCH) private readonly fetch: GuardedFetch,
  ) {}

  /**
   * Reads the server.json from MCP_REGISTRY_URL (SSRF-guarded, bounded), validates it against the
   * official schema (422 naming the field inside it), picks a streamable-http or sse remote and
   * registers it like `POST /v1/servers`, then enqueues its discovery.
   */
  @Post('import')
  @ApiOperation({
    operationId: 'importServer',
    summary:
      'Register an upstream from an MCP Registry server.json (MCP_REGISTRY_URL): validated against the official schema (422 naming registry.server.<field>), remote servers only (streamable-http or sse), then registered and discovered like POST /v1/servers',
    auth: 'tenant',
    body: importServerBody,
    response: importedResponse,
    errors: {
      '422': 'the registry entry is not a valid server.json, or has no usable remote',
      '502': 'the MCP registry could not be read',
    },
  })
  @HttpCode(201)
  @UseGuards(TenantGuard)
  async import(@Tenant() principal: TenantPrincipal, @Body() body: unknown) {
    const { tenantId, actor } = principal;
    const input = parseInput(importServerBody, body, 'body');
    const registryUrl = this.config.MCP_REGISTRY_URL;
    const server = await fetchServerJson({
      registryUrl,
      name: input.name,
      version: input.version,
      fetch: this.fetch,
      timeoutMs: this.config.MCP_REGISTRY_TIMEOUT_MS,
    });
    const problem = serverJsonProblem(server);
    if (problem) {
      const field = ['registry.server', problem.path].filter(Boolean).join('.');
      throw new ApiError(
        422,
        'VALIDATION',
        `${field}: ${problem.message} (the registry's server.json does not match the official schema)`,
        field,
      );
    }
    const doc = server as { name: string; title?: string; version: string; remotes?: [] };
    if (doc.name !== input.name)
      throw new ApiError(
        422,
        'VALIDATION',
        `registry.server.name: the registry answered "${doc.name}" for "${input.name}"`,
        'registry.server.name',
      );
    const remote = remoteFromServerJson(doc, input);
    await this.guard(remote.url, `registry.server.remotes.${remote.index}.url`);
    const id = input.id ?? idFromName(doc.name);
    if (!id) throw new ApiError(400, 'VALIDATION', `body.id: "${doc.name}" gives no valid server id; give one`, 'body.id');
    const created = await this.servers.create(principal, {
      id,
      name: (doc.title ?? doc.name).slice(0, 120),
      url: remote.url,
      transport: remote.transport,
      auth: input.auth,
      ...(input.toolPrefix ? { toolPrefix: input.toolPrefix } : {}),
    });
    await audit(this.db, tenantId, actor, 'server.import', id, { registry: registryUrl, name: doc.name, version: doc.version });
    return { ...created, registry: { name: doc.name, version: doc.version, remote: remote.index, url: remote.url } };
  }

  private async guard(url: string, field: string): Promise<void> {
    try {
      await checkUrl(url, this.policy);
    } catch (err) {
      if (err instanceof NetGuardError) throw new ApiError(422, 'URL_REFUSED', `${field}: ${err.message}`, field, { reason: err.code });
      throw err;
    }
  }
}
