import { createHash } from 'node:crypto';
import type { EffectiveRatePlan } from './effective-rate-plan';
import type { LimitRule } from './limit-rule';

/** Methods limited per subject × server × name (plus the tenant budget every request spends). */
const PER_SUBJECT_METHODS: ReadonlySet<string> = new Set([
  'tools/call', 'resources/read', 'prompts/get', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list',
]);
const MAX_KEY_PART = 96;

export interface LimitedRequest {
  tenantId: string;
  method: string;
  /** OAuth `sub`, else `client:<client id>`, else `ip:<client address>`. */
  subject: string;
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
  const rules: LimitRule[] = [{ kind: 'rate', id: 'tenant', key: `${base}all`, perSecond: plan.tenant.requestsPerSecond, burst: plan.tenant.burst }];
  if (PER_SUBJECT_METHODS.has(request.method)) {
    const isCall = request.method === 'tools/call';
    const override = isCall && request.name !== undefined ? plan.tools.get(request.name) : undefined;
    const spec = override ?? plan.subject;
    const target = isCall || request.method === 'resources/read' || request.method === 'prompts/get' ? `${request.serverId}:${part(request.name ?? '?')}` : `-:${request.method}`;
    rules.push({ kind: 'rate', id: override ? 'tool' : 'subject', key: `${base}s:${part(request.subject)}:${target}`, perSecond: spec.requestsPerSecond, burst: spec.burst });
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
  return value.length <= MAX_KEY_PART && !/[\s{}]/.test(value) ? value : `h:${createHash('sha256').update(value).digest('base64url').slice(0, 32)}`;
}

/**
 * `requestLimitRules`, kept: the same caller, method, server and name under the same plan get
 * the same (frozen-by-convention) rule array back, so a request skips building its keys and
 * the limiter skips rebuilding its lease id. An entry is rebuilt when its tenant's plan
 * changes or its daily quota's day ends. Bounded: past `maxEntries` the oldest entry goes (the
 * callers are whoever sends requests, so the cache must not grow with them).
 */
export class RequestLimitRuleCache {
  private readonly entries = new Map<string, { plan: EffectiveRatePlan; rules: LimitRule[]; until: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  get size(): number {
    return this.entries.size;
  }

  rules(request: LimitedRequest, plan: EffectiveRatePlan, nowMs = Date.now()): readonly LimitRule[] {
    const key = ruleCacheKey(request);
    const hit = this.entries.get(key);
    if (hit && hit.plan === plan && nowMs < hit.until) return hit.rules;
    const rules = requestLimitRules(request, plan, nowMs);
    let until = Number.POSITIVE_INFINITY;
    for (const r of rules) if (r.kind === 'quota') until = Math.min(until, r.resetAtMs);
    if (hit) this.entries.delete(key);
    else if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { plan, rules, until });
    return rules;
  }
}

/** Every part length-prefixed, so no choice of subject or name (a `sub` is whatever an IdP put there) can spell another request's key. */
function ruleCacheKey(r: LimitedRequest): string {
  const name = r.name === undefined ? '-' : `${r.name.length}:${r.name}`;
  return `${r.tenantId.length}:${r.tenantId}${r.method.length}:${r.method}${r.subject.length}:${r.subject}${r.serverId.length}:${r.serverId}${name}`;
}
