import type { TenantLimits } from '@switchboard/catalog';
import type { Logger } from 'pino';
import type { NotificationPacer } from './notification-pacer';
import type { TaskInputShare } from './task-input-inbox';
import type { TenantTransportOptions } from './tenant-transports';
import type { BreakerSettings } from './upstream-guards';
import type { UpstreamSessions } from './upstream-sessions';
import type { CircuitListener } from './upstream-types';

export interface UpstreamPoolOptions {
  /** Shares held task input between replicas (see {@link TaskInputInbox}); absent ⇒ this replica's own only. */
  taskInputShare?: TaskInputShare;
  timeoutMs: number;
  /** In-flight calls per (tenant, upstream) in this replica. */
  maxConcurrency: number;
  /** Calls that may wait for one of an upstream's slots; beyond it a call is refused at once. Default: maxConcurrency. */
  maxQueue?: number;
  /** Largest upstream response body / server-sent event in bytes (tenant override: `limits.upstreamResponseBytes`). */
  maxResponseBytes: number;
  /** Largest event-stream answer to one call in total bytes (UPSTREAM_CALL_STREAM_MAX_BYTES); absent ⇒ unbounded beyond the per-event bound. */
  maxStreamBytes?: number;
  /** Upstream calls one tenant may have in flight (or waiting) in this replica (tenant override: `limits.maxInflight`). */
  tenantMaxInflight: number;
  /** A tenant's limit overrides (its tenant document's `limits`). */
  limitsOf?: (tenantId: string) => TenantLimits | undefined;
  logger: Logger;
  /** Per-upstream circuit breaker settings (default: 5 failures, 10 s open). */
  breaker?: BreakerSettings;
  /**
   * Makes the fetch for one tenant's upstream HTTP (the SSRF-guarded one for tenant-registered
   * upstreams): called once per tenant, so each tenant has its own keep-alive connection pool.
   * Unset: the global fetch, which the SDK lets follow same-origin redirects only.
   */
  fetchFactory?: TenantTransportOptions['fetchFactory'];
  /** Open upstream connections kept per replica (default 5000): past it the least recently used idle ones close. */
  maxConnections?: number;
  /**
   * Makes one tenant's keep-alive pool for direct requests (the SSRF-guarded one — guarded
   * lookup — for tenant-registered upstreams); called once per tenant. Unset: an unguarded pool.
   */
  dispatcherFactory?: TenantTransportOptions['dispatcherFactory'];
  /**
   * Legacy Streamable HTTP calls (`tools/call`, `resources/read`, `prompts/get`) as direct
   * requests on the SDK client's session instead of through the SDK client (default true).
   */
  directRequests?: boolean;
  /**
   * Shares stateful upstreams' sessions between replicas (legacy Streamable HTTP): a replica
   * joins the session another opened for the same connection key instead of opening its own.
   * Unset: each replica has its own sessions.
   */
  sessions?: UpstreamSessions;
  /** Each tenant's share of the notification bytes its upstreams stream (unset: unmetered). */
  notificationPacer?: NotificationPacer;
  /** Told when an upstream's circuit changes state (default: the `upstream_circuit_state` gauge). */
  onCircuit?: CircuitListener;
}
