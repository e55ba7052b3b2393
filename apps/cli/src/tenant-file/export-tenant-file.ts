import type { Publication, Server, TenantAuthView } from '@switchboard/admin-api';
import { prune } from './compare';
import type { LiveState } from './live-state';
import { guardrailsSection } from './plan-guardrails';
import type { PublishSpec, ServerSpec, TenantFile } from './tenant-file-schema';

/** The environment variable an exported file names for a server's secret (the value is never exported). */
export function secretEnvName(serverId: string, what: string): string {
  return `SWITCHBOARD_SECRET_${serverId.toUpperCase().replace(/-/g, '_')}_${what}`;
}

/** The server's auth without its secret, as the file writes it (secrets as env references). */
function authSpec(server: Server): ServerSpec['auth'] {
  const a = server.auth;
  switch (a.mode) {
    case 'none':
      return undefined;
    case 'bearer':
      return { mode: 'bearer', token: { fromEnv: secretEnvName(server.id, 'TOKEN') } };
    case 'header':
      return { mode: 'header', header: a.header ?? '', value: { fromEnv: secretEnvName(server.id, 'VALUE') } };
    case 'oauth_client_credentials':
      return prune({
        mode: a.mode,
        tokenUrl: a.tokenUrl,
        clientId: a.clientId,
        clientSecret: { fromEnv: secretEnvName(server.id, 'CLIENT_SECRET') },
        scope: a.scope,
        audience: a.audience,
      }) as ServerSpec['auth'];
    case 'oauth_user':
      return prune({ mode: a.mode, authorizationServer: a.authorizationServer, scope: a.scope }) as ServerSpec['auth'];
  }
}

/** A published item as the file writes it: defaults (kind tool, exposed name = upstream name, no overrides) left out. */
export function publishSpec(p: Publication): PublishSpec {
  return prune({
    name: p.upstreamName,
    kind: p.kind === 'tool' ? undefined : p.kind,
    exposedName: p.exposedName === p.upstreamName ? undefined : p.exposedName,
    overrides: p.overrides ?? undefined,
  }) as PublishSpec;
}

function serverSpec(server: Server, publications: Publication[]): ServerSpec {
  const spec = prune({
    id: server.id,
    name: server.name,
    url: server.url,
    transport: server.transport === 'auto' ? undefined : server.transport,
    auth: authSpec(server),
    toolPrefix: server.toolPrefix ?? undefined,
    timeoutMs: server.timeoutMs ?? undefined,
    maxConcurrency: server.maxConcurrency ?? undefined,
    stateful: server.stateful ? true : undefined,
  }) as ServerSpec;
  const mine = publications
    .filter((p) => p.serverId === server.id)
    .sort((a, b) => `${a.kind}:${a.upstreamName}`.localeCompare(`${b.kind}:${b.upstreamName}`));
  return { ...spec, publish: mine.map(publishSpec) };
}

function authSection(auth: TenantAuthView): TenantFile['auth'] {
  const idp =
    auth.idp.kind === 'local'
      ? { kind: 'local' as const }
      : prune({
          kind: 'oidc',
          issuer: auth.idp.issuer,
          clientId: auth.idp.clientId,
          scopes: auth.idp.scopes,
          clientSecret: auth.idp.clientSecretSet ? { fromEnv: 'SWITCHBOARD_SECRET_IDP_CLIENT_SECRET' } : undefined,
        });
  return prune({
    protected: auth.protected,
    scopes: auth.scopes.length > 0 ? auth.scopes : undefined,
    defaultScopes: auth.defaultScopes ?? undefined,
    toolScopes: auth.toolScopes,
    allowPrivateUseRedirects: auth.allowPrivateUseRedirects,
    idp,
  }) as TenantFile['auth'];
}

/**
 * Today's tenant as a tenant file: applying it to the same tenant is a no-op. Secrets are
 * written as references to environment variables (SWITCHBOARD_SECRET_<SERVER>_<WHAT>), never as values.
 */
export function exportTenantFile(live: LiveState): TenantFile {
  const t = live.tenant;
  const file: TenantFile = {
    version: 1,
    tenant: prune({
      name: t.name,
      description: t.description ?? undefined,
      instructions: t.instructions ?? undefined,
      origins: t.origins?.length ? t.origins : undefined,
      hosts: t.hosts?.length ? t.hosts : undefined,
    }) as TenantFile['tenant'],
  };
  const rules = prune(t.surfaceRules ?? {}) as Record<string, unknown>;
  if (Object.keys(rules).length > 0) file.surfaceRules = rules as TenantFile['surfaceRules'];
  if (live.auth.configured) file.auth = authSection(live.auth);
  const limits = prune({ rate: live.limits.rate ?? undefined, callLog: live.limits.callLog ?? undefined }) as TenantFile['limits'];
  if (limits && Object.keys(limits).length > 0) file.limits = limits;
  const guardrails = guardrailsSection(live.guardrails);
  if (guardrails) file.guardrails = guardrails;
  file.servers = [...live.servers].sort((a, b) => a.id.localeCompare(b.id)).map((s) => serverSpec(s, live.publications));
  return file;
}
