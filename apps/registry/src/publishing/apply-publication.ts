import { namespacedUiUri } from '@switchboard/catalog';
import { isUiUri } from '@switchboard/protocol';
import type { Queryable } from '../db/database';
import { ApiError } from '../http/api-error';
import type { PublishInput } from '../http/schemas';
import type { ServerRow } from '../model/server-row';
import type { PublicationRow } from './build-snapshot';
import { exposedName } from './exposed-name';
import { patternIssueMessage, patternIssues } from './pattern-issues';
import { missingRequiredHints } from './tool-rules';
import { blocksPoisoned, findingsRefusal } from '../guardrails/findings-refusal';
import type { PoisonFinding } from '../guardrails/scan-definition';

/** One applied item: the upstream name and the exposed name it got. */
export interface AppliedItem {
  kind: string;
  name: string;
  exposedName: string;
}

/**
 * Writes one publication request into `registry.publications` inside the caller's transaction:
 * new items, renames and override changes of one server, with exposed names checked (valid on
 * every surface, unique per tenant; a collision with another server gets the server prefix).
 * Errors name the request field (`body.items.N.exposedName`). Every tool must end up with
 * readOnlyHint, destructiveHint and openWorldHint (upstream or as overrides), else 400
 * HINTS_REQUIRED listing each missing hint per item. Both publishing (committed) and
 * the draft preview (rolled back) go through here, so the preview cannot drift from publish.
 * The caller holds the tenant's publish lock.
 */
export async function applyPublication(
  q: Queryable,
  tenantId: string,
  input: PublishInput,
): Promise<{ server: ServerRow; items: AppliedItem[] }> {
  const servers = await q.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, input.serverId]);
  const server = servers[0];
  if (!server) throw ApiError.notFound('server', input.serverId, 'body.serverId');
  const existing = await q.query<PublicationRow>(
    'SELECT server_id, kind, key, exposed_name FROM registry.publications WHERE tenant_id = $1',
    [tenantId],
  );
  const blockPoisoned = await blocksPoisoned(q, tenantId);
  const out: AppliedItem[] = [];
  const hintIssues: HintIssue[] = [];
  for (const [i, item] of input.items.entries()) {
    const field = `body.items.${i}`;
    const found = await loadDiscovered(q, tenantId, server, item, field);
    if (item.kind === 'tool') hintIssues.push(...toolIssues(found.definition, item, i, field));
    const mine = existing.find((p) => p.server_id === server.id && p.kind === item.kind && p.key === item.name);
    // Only a new publication puts a definition live here; a published one changes through change review.
    const refused = mine
      ? undefined
      : findingsRefusal({
          kind: item.kind,
          name: item.name,
          findings: found.findings,
          acknowledged: item.acknowledgeFindings === true,
          blockPoisoned,
          at: field,
        });
    if (refused) throw refused;
    const name = chooseName(existing, mine, server, item, field);
    await writePublication(q, tenantId, server, item, name, found, mine, existing);
    out.push({ kind: item.kind, name: item.name, exposedName: name });
  }
  // Thrown after the other checks so one answer lists every missing hint; the caller's transaction rolls the writes back.
  if (hintIssues.length > 0) throw hintsRefusal(hintIssues);
  return { server, items: out };
}

type PublishItem = PublishInput['items'][number];
type HintIssue = { field: string; message: string; item: number; name: string; hint: string };
type Discovered = { definition: Record<string, unknown>; content_hash: string; findings: PoisonFinding[] };

/** The live discovered definition of a requested item, or 404 naming the item's field. */
async function loadDiscovered(q: Queryable, tenantId: string, server: ServerRow, item: PublishItem, field: string): Promise<Discovered> {
  const found = await q.query<Discovered>(
    'SELECT definition, content_hash, findings FROM registry.discovered_items WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4 AND removed_at IS NULL',
    [tenantId, server.id, item.kind, item.name],
  );
  if (!found[0])
    throw new ApiError(
      404,
      'NOT_FOUND',
      `${field}.name: ${item.kind} "${item.name}" was not discovered on server "${server.id}"`,
      `${field}.name`,
    );
  return found[0];
}

/** A tool's unsupported patterns (thrown at once) and the hints it still lacks (collected for one answer). */
function toolIssues(definition: Record<string, unknown>, item: PublishItem, i: number, field: string): HintIssue[] {
  // Refused outright (no override can fix an upstream's schema): the gateway would refuse every call.
  const patterns = patternIssues(definition);
  if (patterns.length > 0) throw patternRefusal(`${field}.name`, item.name, patterns);
  return missingRequiredHints(definition, item.overrides).map((hint) => ({
    field: `${field}.overrides.annotations.${hint}`,
    message: `tool "${item.name}" does not declare ${hint}; set it as an override`,
    item: i,
    name: item.name,
    hint,
  }));
}

/** The exposed name an item gets: resources keep theirs (409 on collision); tools and prompts keep, take or derive one. */
function chooseName(
  existing: PublicationRow[],
  mine: PublicationRow | undefined,
  server: ServerRow,
  item: PublishItem,
  field: string,
): string {
  const named = item.kind === 'tool' || item.kind === 'prompt';
  if (!named) {
    // A server's UI resource is published under its per-server URI (what clients see), so two
    // servers' identical `ui://` URIs do not collide (MCP Apps, docs/mcp-apps.md).
    const name = item.kind === 'resource' && isUiUri(item.name) ? namespacedUiUri(server.id, item.name) : item.name;
    if (existing.some((p) => p !== mine && p.kind === item.kind && p.exposed_name === name)) {
      throw new ApiError(
        409,
        'NAME_COLLISION',
        `${field}.name: ${item.kind} "${name}" is already published by another server`,
        `${field}.name`,
      );
    }
    return name;
  }
  if (mine && item.exposedName === undefined) return mine.exposed_name;
  const taken = new Set(existing.filter((p) => p !== mine && p.kind === item.kind).map((p) => p.exposed_name));
  return exposedName({
    upstreamName: item.name,
    explicit: item.exposedName,
    prefix: server.tool_prefix ?? server.id,
    taken,
    field: `${field}.exposedName`,
  });
}

/** Updates an existing publication or inserts a new one, and keeps `existing` current for the next items' name checks. */
async function writePublication(
  q: Queryable,
  tenantId: string,
  server: ServerRow,
  item: PublishItem,
  name: string,
  found: Discovered,
  mine: PublicationRow | undefined,
  existing: PublicationRow[],
): Promise<void> {
  if (mine) {
    await q.query(
      'UPDATE registry.publications SET exposed_name = $5, overrides = $6, updated_at = now() WHERE tenant_id = $1 AND server_id = $2 AND kind = $3 AND key = $4',
      [tenantId, server.id, item.kind, item.name, name, JSON.stringify(item.overrides ?? {})],
    );
    mine.exposed_name = name;
    return;
  }
  await q.query(
    `INSERT INTO registry.publications (tenant_id, server_id, kind, key, exposed_name, approved_hash, approved_definition, overrides)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      tenantId,
      server.id,
      item.kind,
      item.name,
      name,
      found.content_hash,
      JSON.stringify(found.definition),
      JSON.stringify(item.overrides ?? {}),
    ],
  );
  existing.push({ server_id: server.id, kind: item.kind, key: item.name, exposed_name: name } as PublicationRow);
}

/** 400 HINTS_REQUIRED naming the first item's missing hints, with every item's issues listed. */
function hintsRefusal(hintIssues: HintIssue[]): ApiError {
  const first = hintIssues[0];
  const missing = hintIssues.filter((h) => h.item === first.item).map((h) => h.hint);
  return new ApiError(
    400,
    'HINTS_REQUIRED',
    `${first.field}: tool "${first.name}" must declare readOnlyHint, destructiveHint and openWorldHint before publishing (missing: ${missing.join(', ')}); set them as overrides`,
    first.field,
    { issues: hintIssues.map(({ field, message }) => ({ field, message })) },
  );
}

/** 400 PATTERN_UNSUPPORTED for a tool whose inputSchema has regexes RE2 cannot run; one issue per pattern. */
export function patternRefusal(field: string, tool: string, patterns: ReturnType<typeof patternIssues>): ApiError {
  const first = patterns[0];
  return new ApiError(400, 'PATTERN_UNSUPPORTED', `${field}: ${patternIssueMessage(tool, first)}`, field, {
    issues: patterns.map((p) => ({
      field,
      message: patternIssueMessage(tool, p),
      tool,
      pointer: p.pointer,
      pattern: p.pattern,
      reason: p.reason,
    })),
  });
}
