import type { JsonObject, JsonRpcId } from '@switchboard/protocol';
import type { CalledTarget } from './called-target';
import type { AuthGranted } from './auth-outcome';
import type { EncodedAnswer } from './encoded-answer';

/** What the transport knows when a JSON-RPC request of a known tenant starts. */
export interface McpRequestInfo {
  tenantId: string;
  method: string;
  /** tools/call and prompts/get: the name, only when the catalog knows it (keeps labels bounded). */
  name: string | undefined;
  /** What a call / get / read targets in the catalog (server id, and the name or resource URI it knows). */
  called: CalledTarget;
  headers: Record<string, string | string[] | undefined>;
  /** The verified caller on a protected tenant. */
  auth?: AuthGranted;
  /** The client address (Fastify's `req.ip`, i.e. after the trusted proxies). */
  clientIp?: string;
  /** The request's params (usage metering reads `arguments` only for tenants that opted in). */
  params?: JsonObject;
  /** Size of the POSTed body (a whole batch for batch members). */
  bytesIn?: number;
  /** The JSON-RPC `id` of the request. */
  requestId?: JsonRpcId;
}

/** One observed request: told what the transport learns, and when it ends. */
export interface McpRequestObservation {
  /** Era, protocol version and surface, once classified. */
  classified(info: { era: string; protocolVersion: string; surfaceId: string }): void;
  /** A tools/call answered with `isError: true`. */
  toolFailed(): void;
  /** Runs the dispatch (so work done for the request, such as upstream calls, is attributed to it). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** The answer: `errorCode` is the JSON-RPC error code when it was an error; `body` the encoded response and `bytes` its length on the wire. */
  end(result: { errorCode: number | undefined; httpStatus: number; body?: EncodedAnswer; bytes: number }): void;
}

/** Called once per JSON-RPC request (each member of a batch too) that reached a tenant. */
export interface McpObserver {
  onRequest(info: McpRequestInfo): McpRequestObservation;
  /**
   * An HTTP request to an MCP route answered 4xx/5xx without any JSON-RPC request being
   * observed (unknown tenant, Host/Origin, 401/403 from `authenticate`, 413, 415, 406, parse
   * errors, scope denials, batch bounds), so refusals are never invisible.
   */
  onRefusal?(info: McpRefusal): void;
}

/** A refused MCP HTTP request (see {@link McpObserver.onRefusal}). */
export interface McpRefusal {
  /** The resolved tenant; undefined when the endpoint is unknown. */
  tenantId: string | undefined;
  httpMethod: string;
  /** The route template (`/t/:tenant/mcp`). */
  route: string;
  status: number;
  /** `performance.now()` when the request arrived. */
  startedAt: number;
  clientIp?: string;
  /** A more precise reason than the status (e.g. `insufficient_scope`). */
  outcome?: string;
}
