import type { JsonRpcRequest, McpError } from '@switchboard/protocol';
import type { AuthDenied, AuthGranted, AuthOutcome } from './auth-outcome';
import type { CalledTarget } from './called-target';
import type { EdgeCall } from './edge-call';
import type { McpObserver } from './mcp-observer';
import type { McpTarget } from './mcp-target';
import type { UpstreamInvoker } from './upstream-invoker';

/**
 * What the edge asks of its host application, in the order a request meets it: which tenant
 * a request is for, who the caller is, whether the caller may run a tool, whether the request
 * is admitted (rate limits, quotas), how it is observed (spans, metrics), and how non-local
 * routes are called. One object, so a transport step never reaches for a loose hook.
 */
export interface EdgePolicy {
  /**
   * Finds the target of a request from the tenant in its path, else its Host; undefined ⇒ 404 with a JSON-RPC error body.
   * A promise only when the target must be fetched first (a cold tenant); a held one answers synchronously.
   */
  resolveTarget(tenant: string | undefined, host: string | undefined): McpTarget | undefined | Promise<McpTarget | undefined>;
  /** Bearer-token check, run after the Host/Origin guard on every method; absent ⇒ the endpoint is open. */
  authenticate?(call: EdgeCall, target: McpTarget): AuthOutcome | Promise<AuthOutcome>;
  /** Per-tool check (e.g. OAuth scopes) before a tools/call runs; a denial is sent instead of calling the tool. */
  authorizeTool?(target: McpTarget, tool: string, auth: AuthGranted): AuthDenied | undefined;
  /**
   * Admission of each classified JSON-RPC request (rate limits, quotas), before it runs: a
   * refusal's error is the answer (its `httpStatus`), its headers are set on the response.
   */
  admit?(call: EdgeCall, target: McpTarget, request: AdmitRequest): AdmitRefusal | undefined | Promise<AdmitRefusal | undefined>;
  /** Tracing/metrics hook (the gateway supplies an OpenTelemetry one); the transport itself imports no telemetry. */
  observe?: McpObserver;
  /** Calls non-local routes (a tenant's upstream MCP servers); built-in servers with only local handlers omit it. */
  upstream?: UpstreamInvoker;
}

/** One request as admission sees it. */
export interface AdmitRequest {
  message: JsonRpcRequest;
  era: 'legacy' | 'modern';
  auth: AuthGranted | undefined;
  /** What the request targets in the catalog (looked up once per request; see `CalledTarget`). */
  called: CalledTarget;
}

/** A refused request: the wire error to answer with and response headers (e.g. `Retry-After`). */
export interface AdmitRefusal {
  error: McpError;
  headers: Record<string, string>;
}

export type { AuthDenied, AuthGranted, AuthOutcome } from './auth-outcome';
