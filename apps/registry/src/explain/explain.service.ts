import { Inject, Injectable } from '@nestjs/common';
import { discoverySettingsSchema, MAX_GROUPS_READ, type CatalogSnapshot } from '@switchboard/catalog';
import { LEGACY_VERSIONS, MODERN_VERSIONS, surfaceProfiles, type ProtocolVersion } from '@switchboard/protocol';
import { Database } from '../db/database';
import { ApiError } from '../http/api-error';
import { loadTenantAuth } from '../model/tenant-auth-store';
import { loadTenant } from '../model/tenant-row';
import { passkeysOf, userStatus, type UserRow } from '../model/user-store';
import { listContext } from './explain-list';
import { EXPLAIN_LIMITS, type explainQuery } from './explain-schemas';
import { explainTool } from './explain-tool';
import type { CallerFacts, DiscoveredFact, InterceptorFact, PublicationFact, TenantFacts, ToolExplanation } from './explain-types';
import type { z } from 'zod';

const VERSIONS: readonly string[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

type ExplainQuery = z.infer<typeof explainQuery>;

/** Loads the facts the explain rules read (the live snapshot, publications, discovery, auth, guardrails) and runs them. */
@Injectable()
export class ExplainService {
  constructor(@Inject(Database) private readonly db: Database) {}

  async explain(
    tenantId: string,
    q: ExplainQuery,
  ): Promise<{ surface: string; version: string; tools: ToolExplanation[]; truncated: boolean }> {
    const t = await this.tenantFacts(tenantId, q);
    const publications = await this.db.query<PublicationFact>(
      `SELECT server_id AS "serverId", key, exposed_name AS "exposedName", approved_hash AS "approvedHash",
              approved_definition AS "approvedDefinition", overrides
         FROM registry.publications WHERE tenant_id = $1 AND kind = 'tool' ORDER BY exposed_name`,
      [tenantId],
    );
    const discovered = await this.db.query<DiscoveredFact>(
      `SELECT server_id AS "serverId", key, definition, content_hash AS "contentHash",
              jsonb_array_length(findings) AS findings, removed_at IS NOT NULL AS removed
         FROM registry.discovered_items WHERE tenant_id = $1 AND kind = 'tool' ORDER BY server_id, key`,
      [tenantId],
    );
    const ctx = listContext(t);
    const factsOf = (name: string) => {
      const publication = publications.find((p) => p.exposedName === name) ?? publications.find((p) => p.key === name);
      const mine = discovered.filter(
        (d) => d.key === name || (publication && d.serverId === publication.serverId && d.key === publication.key),
      );
      return { name, publication, discovered: mine };
    };
    if (q.tool !== undefined)
      return { surface: t.surfaceId, version: t.version, tools: [explainTool(t, factsOf(q.tool), ctx)], truncated: false };
    // Every tool a client of this surface does not get: unpublished discoveries, and live or published tools the list leaves out.
    const names = new Set<string>([
      ...discovered.filter((d) => !d.removed && !publications.some((p) => p.serverId === d.serverId && p.key === d.key)).map((d) => d.key),
      ...publications.map((p) => p.exposedName),
      ...(t.snapshot?.tools.map((e) => e.definition.name) ?? []),
    ]);
    const tools: ToolExplanation[] = [];
    let truncated = false;
    for (const name of names) {
      if (ctx?.listedNames.has(name)) continue;
      if (tools.length === EXPLAIN_LIMITS.tools) {
        truncated = true;
        break;
      }
      tools.push(explainTool(t, factsOf(name), ctx));
    }
    return { surface: t.surfaceId, version: t.version, tools, truncated };
  }

  /** A directory user's status and, unless `groups` was given, its directory (SCIM) groups. */
  private async subjectFacts(tenantId: string, username: string, caller: CallerFacts): Promise<void> {
    const rows = await this.db.query<UserRow>('SELECT * FROM registry.tenant_users WHERE tenant_id = $1 AND username = $2', [
      tenantId,
      username,
    ]);
    const row = rows[0];
    if (!row) {
      caller.subject = { username, status: 'unknown' };
      return;
    }
    const keys = await passkeysOf(this.db, tenantId, [username]);
    caller.subject = { username, status: userStatus(row, keys.get(username)?.length ?? 0) };
    if (caller.groups) return;
    const groups = await this.db.query<{ name: string }>(
      `SELECT g.display_name AS name FROM registry.scim_group_members m
         JOIN registry.scim_groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
        WHERE m.tenant_id = $1 AND m.username = $2 ORDER BY g.display_name LIMIT $3`,
      [tenantId, username, MAX_GROUPS_READ],
    );
    caller.groups = groups.map((g) => g.name);
    caller.subject.groupsFrom = 'directory';
  }

  private async tenantFacts(tenantId: string, q: ExplainQuery): Promise<TenantFacts> {
    if (!VERSIONS.includes(q.version))
      throw new ApiError(400, 'VALIDATION', `query.version: unknown protocol version (known: ${VERSIONS.join(', ')})`, 'query.version');
    const tenant = await loadTenant(this.db, tenantId);
    const surfaces = surfaceProfiles(tenant.surface_rules);
    if (!Object.hasOwn(surfaces, q.surface))
      throw new ApiError(
        404,
        'NOT_FOUND',
        `query.surface: surface "${q.surface}" is not defined (known: ${Object.keys(surfaces).join(', ')})`,
        'query.surface',
      );
    let snapshot: CatalogSnapshot | undefined;
    if (tenant.current_version) {
      const rows = await this.db.query<{ snapshot: CatalogSnapshot }>(
        'SELECT snapshot FROM registry.snapshots WHERE tenant_id = $1 AND version = $2',
        [tenantId, tenant.current_version],
      );
      snapshot = rows[0]?.snapshot;
    }
    const caller: CallerFacts = {
      ...(q.scopes ? { scopes: q.scopes } : {}),
      ...(q.groups ? { groups: q.groups } : {}),
      ...(q.capabilities ? { capabilities: q.capabilities } : {}),
    };
    if (q.subject !== undefined) await this.subjectFacts(tenantId, q.subject, caller);
    return {
      snapshot,
      surfaces,
      surfaceId: q.surface,
      version: q.version as ProtocolVersion,
      discovery: tenant.discovery ? discoverySettingsSchema.parse(tenant.discovery) : undefined,
      auth: await loadTenantAuth(this.db, tenantId),
      // Only the fields that say whether an interceptor applies are read; its sealed secrets never are.
      interceptors: (tenant.guardrails?.interceptors ?? []) as unknown as InterceptorFact[],
      ...(tenant.rate_plan ? { ratePlan: tenant.rate_plan } : {}),
      caller,
    };
  }
}
