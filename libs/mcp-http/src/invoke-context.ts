import type { LogLevel, RequestContext } from '@switchboard/protocol';
import type { AuthGranted } from './auth-outcome';

/** Context handed to a route invoker for one call. */
export interface InvokeContext {
  tenantId: string;
  request: RequestContext;
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): void;
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Relays an upstream's `notifications/resources/updated` for `uri` to this call's client (on its response stream). */
  resourceUpdated?(uri: string): void;
  /** Whether `progress` / `log` still reach the client (false once the call's notification budget is spent): an upstream's need not be parsed. */
  relaying?(): boolean;
  /** The verified caller on a protected tenant (its token is only for exchanges with our own auth service, never forwarded). */
  auth?: AuthGranted;
  /**
   * Relays one server→client request (an upstream's `elicitation/create`, `sampling/createMessage`,
   * `roots/list`) to this call's client and resolves with its result; present only when the
   * client can answer (a legacy client whose session declared `clientCapabilities`).
   * @throws Error naming why the client could not answer.
   */
  askClient?(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** A modern call's MRTR retry fields (`inputResponses`, the upstream's own `requestState`), for a 2026-07-28 upstream. */
  input?: { responses: Record<string, unknown>; requestState?: string };
}
