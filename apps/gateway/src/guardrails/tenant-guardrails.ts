import {
  compileGuardrails,
  type CelEngine,
  type ChainDeps,
  type CompiledGuardrails,
  type CompiledInterceptor,
  type InterceptionRecord,
  type WebhookCaller,
} from '@switchboard/guardrails';
import type { Logger } from 'pino';
import type { TenantCatalog } from '../catalog-source/catalog-source';
import type { UpstreamInvoker } from '@switchboard/mcp-http';
import { guardInvoker } from './guarded-invoker';

export interface TenantGuardrailsOptions {
  logger: Logger;
  /** Sends webhook interceptors' requests (`webhookCaller`: net-guard, signed, bounded, breaker). */
  webhook: WebhookCaller;
  /** The CEL evaluator; without one a tenant's `cel` interceptor does not compile (and fails closed). */
  cel?: CelEngine;
  /** Where audit outcomes, enforced denials and interceptor failures go; default the log. */
  record?: (tenantId: string, entry: InterceptionRecord) => void;
}

/** Reason a client sees when its tenant's guardrails failed to compile: calls are refused, not let through unguarded. */
const BROKEN_REASON = 'guardrails configuration is invalid';

/**
 * Each tenant's compiled interceptors, compiled once per tenant document (not per call). A
 * tenant with none has no entry, so `of` is one Map miss on the hot path. A section that does
 * not compile (a CEL rule without an evaluator, a pattern RE2 refuses) fails closed: every
 * guarded call is denied until a document that compiles arrives.
 */
export class TenantGuardrails {
  private readonly byTenant = new Map<string, CompiledGuardrails>();
  private readonly record: (tenantId: string, entry: InterceptionRecord) => void;

  constructor(private readonly options: TenantGuardrailsOptions) {
    this.record = options.record ?? ((tenant, entry) => options.logger.info({ tenant, guardrail: entry }, 'guardrail outcome'));
  }

  /** The invoker with every tenant's interceptors in front of and behind its upstream calls. */
  wrap<T extends UpstreamInvoker>(inner: T): T {
    return guardInvoker(inner, this, (tenantId): ChainDeps => ({
      webhook: this.options.webhook,
      record: (entry) => this.record(tenantId, entry),
    }));
  }

  apply(tenant: TenantCatalog): void {
    if (!tenant.guardrails || tenant.guardrails.interceptors.length === 0) {
      this.byTenant.delete(tenant.id);
      return;
    }
    const result = compileGuardrails(tenant.guardrails, this.options.cel ? { cel: this.options.cel } : {});
    if (result.ok) {
      this.byTenant.set(tenant.id, result.compiled);
      return;
    }
    this.options.logger.error({ tenant: tenant.id, errors: result.errors }, 'guardrails did not compile; guarded calls are refused');
    this.byTenant.set(tenant.id, refuseAll());
  }

  /** The tenant's compiled interceptors, or undefined when it has none (nothing to do). */
  of(tenantId: string): CompiledGuardrails | undefined {
    return this.byTenant.get(tenantId);
  }
}

function refuseAll(): CompiledGuardrails {
  const deny: CompiledInterceptor = {
    name: 'guardrails',
    type: 'validation',
    mode: 'enforce',
    failOpen: false,
    kind: 'cel',
    matches: () => true,
    run: () => ({ kind: 'deny', reason: BROKEN_REASON }),
  };
  const chain = [deny];
  return { chains: { 'tools/call:request': chain, 'prompts/get:response': chain, 'resources/read:response': chain }, size: 1 };
}
