import { createHash } from 'node:crypto';
import type { EffectiveRatePlan } from './effective-rate-plan';
import type { LimitRule } from './limit-rule';
import type { UsageSubjectKind } from './usage-batch';

/**
 * Methods limited per subject × server × name (plus the tenant budget every request spends).
 * `stream/resume` is a `GET` with `Last-Event-ID` (mcp-http's STREAM_RESUME_METHOD): each one
 * holds a connection and polls the store, so one caller must not spend the tenant's budget on them.
 */
const PER_SUBJECT_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'resources/read',
  'prompts/get',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'stream/resume',
]);
const MAX_KEY_PART = 96;

export interface LimitedRequest {
  tenantId: string;
  method: string;
  /** Who is limited (see `subjectKindOf`): its OAuth `sub`, else its OAuth client id, else its address. */
  subjectKind: UsageSubjectKind;
  subjectId: string;
  /** The catalog's server id of the tool / resource / prompt (`local` for in-process ones, `-` for lists or unknown names). */
  serverId: string;
  /** The exposed tool / prompt name or resource URI, only when the catalog knows it (unknown ⇒ `?`), keeping keys bounded. */
  name: string | undefined;
}

/**
 * The rules one MCP request must pass: the tenant budget; for calls, reads, prompt gets and
 * lists the caller's bucket for that server × tool (a per-tool override when the plan has
 * one); for tools/call the tenant's daily quota. Every key starts with the tenant in a hash
 * tag (`rl:{tenant}:…`), so one request's keys share a Redis Cluster slot and no tenant can
 * reach another's buckets.
 */
export function requestLimitRules(request: LimitedRequest, plan: EffectiveRatePlan, nowMs = Date.now()): LimitRule[] {
  const base = `rl:{${request.tenantId}}:`;
  const rules: LimitRule[] = [
    { kind: 'rate', id: 'tenant', key: `${base}all`, perSecond: plan.tenant.requestsPerSecond, burst: plan.tenant.burst },
  ];
  if (PER_SUBJECT_METHODS.has(request.method)) {
    const isCall = request.method === 'tools/call';
    const override = isCall && request.name !== undefined ? plan.tools.get(request.name) : undefined;
    const spec = override ?? plan.subject;
    const target =
      isCall || request.method === 'resources/read' || request.method === 'prompts/get'
        ? `${request.serverId}:${part(request.name ?? '?')}`
        : `-:${request.method}`;
    rules.push({
      kind: 'rate',
      id: override ? 'tool' : 'subject',
      key: `${base}s:${part(`${request.subjectKind}:${request.subjectId}`)}:${target}`,
      perSecond: spec.requestsPerSecond,
      burst: spec.burst,
    });
    if (isCall && plan.dailyCalls > 0) {
      const day = new Date(nowMs);
      const resetAtMs = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
      rules.push({ kind: 'quota', id: 'daily', key: `${base}day:${day.toISOString().slice(0, 10)}`, limit: plan.dailyCalls, resetAtMs });
    }
  }
  return rules;
}

/** Long or odd key parts (a subject is whatever an IdP put in `sub`) become a fixed-size hash. */
function part(value: string): string {
  return value.length <= MAX_KEY_PART && !/[\s{}]/.test(value)
    ? value
    : `h:${createHash('sha256').update(value).digest('base64url').slice(0, 32)}`;
}

/**
 * `requestLimitRules`, kept: the same caller, method, server and name under the same plan get
 * the same (frozen-by-convention) rule array back, so a request skips building its keys and
 * the limiter skips rebuilding its lease id. An entry is rebuilt when its tenant's plan
 * changes or its daily quota's day ends. Bounded: past `maxEntries` the oldest entry goes (the
 * callers are whoever sends requests, so the cache must not grow with them).
 *
 * Held as a tree, one level per part (tenant, method, subject kind, subject id, server, name), so a
 * lookup is six map reads on strings whose hash V8 already keeps — no key string built and hashed
 * per request, and no choice of subject or name can spell
 * another request's path. An unknown name (undefined) has its own slot, apart from any real name.
 */
export class RequestLimitRuleCache {
  private readonly root: Level = new Map();
  /** Every entry, oldest first. */
  private readonly order = new Set<RuleEntry>();

  constructor(private readonly maxEntries = 10_000) {}

  get size(): number {
    return this.order.size;
  }

  rules(request: LimitedRequest, plan: EffectiveRatePlan, nowMs = Date.now()): readonly LimitRule[] {
    const byMethod = this.root.get(request.tenantId) as Level | undefined;
    const byKind = byMethod?.get(request.method) as Level | undefined;
    const bySubject = byKind?.get(request.subjectKind) as Level | undefined;
    const byServer = bySubject?.get(request.subjectId) as Level | undefined;
    const byName = byServer?.get(request.serverId) as Level | undefined;
    const hit = byName?.get(request.name) as RuleEntry | undefined;
    if (hit && hit.plan === plan && nowMs < hit.until) return hit.rules;
    const rules = requestLimitRules(request, plan, nowMs);
    let until = Number.POSITIVE_INFINITY;
    for (const r of rules) if (r.kind === 'quota') until = Math.min(until, r.resetAtMs);
    if (hit) {
      // Rebuilt in place; it counts as new for the bound.
      Object.assign(hit, { plan, rules, until });
      this.order.delete(hit);
      this.order.add(hit);
      return rules;
    }
    if (this.order.size >= this.maxEntries) this.evict(this.order.values().next().value!);
    const path: RuleEntry['path'] = [];
    let level = this.root;
    for (const part of [request.tenantId, request.method, request.subjectKind, request.subjectId, request.serverId]) {
      let next = level.get(part) as Level | undefined;
      if (!next) level.set(part, (next = new Map()));
      path.push([level, part]);
      level = next;
    }
    path.push([level, request.name]);
    const entry: RuleEntry = { plan, rules, until, path };
    level.set(request.name, entry);
    this.order.add(entry);
    return rules;
  }

  /** Removes an entry and every level it leaves empty. */
  private evict(entry: RuleEntry): void {
    this.order.delete(entry);
    for (let i = entry.path.length - 1; i >= 0; i--) {
      const [level, part] = entry.path[i];
      level.delete(part);
      if (level.size > 0) break;
    }
  }
}

type Level = Map<string | undefined, Level | RuleEntry>;

interface RuleEntry {
  plan: EffectiveRatePlan;
  rules: LimitRule[];
  until: number;
  /** The levels from the root down to this entry, each with the part it is filed under there. */
  path: Array<[Level, string | undefined]>;
}
