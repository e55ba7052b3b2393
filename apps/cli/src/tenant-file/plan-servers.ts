import type { CreateServerBody, Publication, PublishBody, Server, UnpublishBody, UpdateServerBody } from '@switchboard/admin-api';
import { diffFields, prune, same, type FieldChange } from './compare';
import { publishSpec } from './export-tenant-file';
import type { LiveState } from './live-state';
import type { PlanStep } from './plan-step';
import { describeSecrets, secretRefs, withSecrets } from './secrets';
import type { PublishSpec, ServerSpec, TenantFile } from './tenant-file-schema';
import { waitForDiscovery } from './wait-for-discovery';

/** Settings compared field by field, with the API's defaults for what a file leaves out. */
function comparable(s: ServerSpec): Record<string, unknown> {
  return {
    name: s.name,
    url: s.url,
    transport: s.transport ?? 'auto',
    toolPrefix: s.toolPrefix ?? null,
    timeoutMs: s.timeoutMs ?? null,
    maxConcurrency: s.maxConcurrency ?? null,
    stateful: s.stateful ?? false,
  };
}

function liveComparable(s: Server): Record<string, unknown> {
  return {
    name: s.name,
    url: s.url,
    transport: s.transport,
    toolPrefix: s.toolPrefix ?? null,
    timeoutMs: s.timeoutMs ?? null,
    maxConcurrency: s.maxConcurrency ?? null,
    stateful: s.stateful ?? false,
  };
}

/** The auth settings that can be compared: everything but the secret (the API never shows it). */
function authShape(auth: ServerSpec['auth'] | Server['auth'] | undefined): Record<string, unknown> {
  const a = (auth ?? { mode: 'none' }) as Record<string, unknown>;
  return prune({
    mode: a.mode,
    header: a.header,
    tokenUrl: a.tokenUrl,
    clientId: a.clientId,
    scope: a.scope,
    audience: a.audience,
    authorizationServer: a.authorizationServer,
  }) as Record<string, unknown>;
}

function createStep(spec: ServerSpec, index: number): PlanStep {
  const { publish: _publish, ...server } = spec;
  const body = { ...server } as CreateServerBody;
  return {
    action: 'create',
    target: `server ${spec.id}`,
    changes: diffFields('', {}, describeSecrets(server)),
    discovers: spec.id,
    secrets: secretRefs(spec.auth, `servers.${index}.auth`),
    execute: async (ctx) => {
      await ctx.client.call('createServer', { body: withSecrets(ctx.env, body, `servers.${index}`) });
      ctx.discovering.add(spec.id);
    },
  };
}

function updateStep(spec: ServerSpec, live: Server, index: number, rotateSecrets: boolean): PlanStep | undefined {
  const changes = diffFields('', liveComparable(live), comparable(spec));
  const authChanged = !same(authShape(live.auth), authShape(spec.auth));
  const sendAuth = authChanged || (rotateSecrets && secretRefs(spec.auth, 'auth').length > 0);
  if (sendAuth)
    changes.push(
      ...(authChanged
        ? diffFields('auth', authShape(live.auth), describeSecrets(spec.auth ?? { mode: 'none' }))
        : [{ field: 'auth', after: describeSecrets(spec.auth) }]),
    );
  if (changes.length === 0) return undefined;
  const desired = comparable(spec);
  const body: Record<string, unknown> = {};
  for (const c of changes) if (!c.field.startsWith('auth')) body[c.field] = desired[c.field];
  if (sendAuth) body.auth = spec.auth ?? { mode: 'none' };
  const rediscovers = sendAuth || 'url' in body || 'transport' in body;
  return {
    action: 'update',
    target: `server ${spec.id}`,
    changes,
    ...(rediscovers ? { discovers: spec.id } : {}),
    secrets: sendAuth ? secretRefs(spec.auth, `servers.${index}.auth`) : [],
    execute: async (ctx) => {
      await ctx.client.call('updateServer', {
        params: { id: spec.id },
        body: withSecrets(ctx.env, body, `servers.${index}`) as UpdateServerBody,
      });
      if (rediscovers) ctx.discovering.add(spec.id);
    },
  };
}

const itemKey = (kind: string | undefined, name: string) => `${kind ?? 'tool'}:${name}`;

/** The desired item compared with the live one: exposed name only when the file sets it. */
function itemChanges(want: PublishSpec, have: Publication): FieldChange[] {
  const current = publishSpec(have);
  const base = `${itemKey(want.kind, want.name)}`;
  const changes = diffFields(`${base}.overrides`, current.overrides ?? {}, want.overrides ?? {});
  if (want.exposedName !== undefined && want.exposedName !== have.exposedName)
    changes.push({ field: `${base}.exposedName`, before: have.exposedName, after: want.exposedName });
  return changes;
}

/** Publications of one server: publish new and changed items, unpublish items the file no longer lists. */
function publicationStep(spec: ServerSpec, livePubs: Publication[], isNew: boolean): PlanStep | undefined {
  if (spec.publish === undefined) return undefined;
  const have = new Map(livePubs.filter((p) => p.serverId === spec.id).map((p) => [itemKey(p.kind, p.upstreamName), p]));
  const changes: FieldChange[] = [];
  const toPublish: PublishSpec[] = [];
  for (const want of spec.publish) {
    const current = have.get(itemKey(want.kind, want.name));
    have.delete(itemKey(want.kind, want.name));
    const diff = current
      ? itemChanges(want, current)
      : [{ field: itemKey(want.kind, want.name), after: prune({ exposedName: want.exposedName, overrides: want.overrides }) ?? {} }];
    if (diff.length > 0) toPublish.push(want);
    changes.push(...diff);
  }
  const toRemove = [...have.values()];
  for (const p of toRemove) changes.push({ field: itemKey(p.kind, p.upstreamName), before: { exposedName: p.exposedName } });
  if (changes.length === 0) return undefined;
  return {
    action: isNew || livePubs.every((p) => p.serverId !== spec.id) ? 'create' : toPublish.length === 0 ? 'delete' : 'update',
    target: `publications of ${spec.id}`,
    changes,
    secrets: [],
    execute: async (ctx) => {
      if (ctx.discovering.has(spec.id)) await waitForDiscovery(ctx.client, spec.id, ctx.discoveryWaitMs);
      if (toRemove.length > 0) {
        const body = { serverId: spec.id, items: toRemove.map((p) => ({ kind: p.kind, name: p.upstreamName })) } as UnpublishBody;
        await ctx.client.call('unpublish', { body });
      }
      if (toPublish.length > 0) {
        const body = {
          serverId: spec.id,
          items: toPublish.map((p) => prune({ kind: p.kind ?? 'tool', name: p.name, exposedName: p.exposedName, overrides: p.overrides })),
        } as PublishBody;
        await ctx.client.call('publish', { body });
      }
    },
  };
}

function deleteStep(server: Server, livePubs: Publication[]): PlanStep {
  const published = livePubs.filter((p) => p.serverId === server.id).map((p) => p.exposedName);
  return {
    action: 'delete',
    target: `server ${server.id}`,
    changes: [{ field: 'url', before: server.url }, ...(published.length > 0 ? [{ field: 'publications', before: published }] : [])],
    secrets: [],
    execute: async ({ client }) => void (await client.call('deleteServer', { params: { id: server.id } })),
  };
}

/**
 * Steps for `servers` (when the file has the key): deletions first (they free exposed names),
 * then creations and updates, then each server's publications (after its discovery when apply started one).
 */
export function planServers(file: TenantFile, live: LiveState, rotateSecrets: boolean): PlanStep[] {
  if (file.servers === undefined) return [];
  const specs = file.servers;
  const wanted = new Set(specs.map((s) => s.id));
  const byId = new Map(live.servers.map((s) => [s.id, s]));
  const deletes = live.servers.filter((s) => !wanted.has(s.id)).map((s) => deleteStep(s, live.publications));
  const upserts = specs.map((spec, i) => {
    const current = byId.get(spec.id);
    return current ? updateStep(spec, current, i, rotateSecrets) : createStep(spec, i);
  });
  const publications = specs.map((spec) => publicationStep(spec, live.publications, !byId.has(spec.id)));
  return [...deletes, ...upserts, ...publications].filter((s): s is PlanStep => s !== undefined);
}
