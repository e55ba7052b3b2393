import type { CelVariables } from './cel-engine';
import type { InterceptionEvent, WebhookConfig } from './guardrails-schema';

/** Where a chain runs: an event and the side of it (tools/call arguments, or a result). */
export type HookPoint = 'tools/call:request' | 'tools/call:response' | 'prompts/get:response' | 'resources/read:response';
export const HOOK_POINTS: readonly HookPoint[] = [
  'tools/call:request',
  'tools/call:response',
  'prompts/get:response',
  'resources/read:response',
];

/** What one interception is about. */
export interface InterceptContext {
  point: HookPoint;
  event: InterceptionEvent;
  /** The upstream server id the call routes to. */
  server: string;
  /** The tool name (tools/call), prompt name (prompts/get) or resource URI (resources/read). */
  target: string;
  caller: CelVariables['caller'];
  /** tools/call arguments (both phases), prompts/get arguments; `{}` otherwise. */
  args: Record<string, unknown>;
  now: Date;
}

/** One interceptor's answer: SEP-2624's ValidationResult / MutationResult reduced to what the chain uses. */
export type Verdict =
  { kind: 'allow' } | { kind: 'deny'; reason: string } | { kind: 'mutate'; payload: unknown; info?: Record<string, unknown> };

/** Sends one SEP-2624 `interceptor/invoke`-shaped body to a tenant webhook and returns its parsed JSON answer. */
export type WebhookCaller = (webhook: WebhookConfig, interceptor: string, body: unknown) => Promise<unknown>;

/** What the chain records: every audit-mode outcome, every enforced denial, every interceptor failure. */
export interface InterceptionRecord {
  interceptor: string;
  point: HookPoint;
  server: string;
  target: string;
  mode: 'enforce' | 'audit';
  /** `deny` / `mutate`: what the interceptor decided (applied only in enforce mode); `error`: it failed. */
  outcome: 'deny' | 'mutate' | 'error';
  /** True when the outcome took effect (enforce mode, or a failure that closed the call). */
  applied: boolean;
  reason?: string;
  info?: Record<string, unknown>;
}

export interface ChainDeps {
  webhook: WebhookCaller;
  record(entry: InterceptionRecord): void;
}

export interface CompiledInterceptor {
  readonly name: string;
  readonly type: 'validation' | 'mutation';
  readonly mode: 'enforce' | 'audit';
  readonly failOpen: boolean;
  readonly kind: 'pii' | 'cel' | 'webhook';
  matches(server: string, target: string): boolean;
  run(payload: unknown, ctx: InterceptContext, deps: ChainDeps): Verdict | Promise<Verdict>;
}

/** A tenant's compiled interceptors: per hook point, in document order; a point with none is absent. */
export interface CompiledGuardrails {
  readonly chains: Readonly<Partial<Record<HookPoint, readonly CompiledInterceptor[]>>>;
  /** Number of interceptors configured (0 ⇒ the gateway skips guardrails entirely). */
  readonly size: number;
}

export const EMPTY_GUARDRAILS: CompiledGuardrails = Object.freeze({ chains: Object.freeze({}), size: 0 });
