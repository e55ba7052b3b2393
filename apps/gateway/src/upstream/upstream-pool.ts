import { createHash } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import type { GetPromptResult, ReadResourceResult, Route, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamInvoker } from '@switchboard/mcp-http';
import { ErrorCode, McpError } from '@switchboard/protocol';
import type { Logger } from 'pino';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker';
import type { ConnectorCredential } from '../auth/connector-tokens';
import { Semaphore } from './semaphore';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

export interface UpstreamPoolOptions {
  timeoutMs: number;
  maxConcurrency: number;
  logger: Logger;
  /** Per-upstream circuit breaker settings (default: 5 failures, 10 s open). */
  breaker?: Omit<CircuitBreakerOptions, 'now'>;
  /** The fetch used for upstream HTTP (the SSRF-guarded one for tenant-registered upstreams). */
  fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /**
   * Per-user credentials of enterprise connectors: when it returns a resolver for a route,
   * the call carries the user's vaulted token instead of the route's static credential.
   */
  connectorCredential?: (tenantId: string, serverId: string, ctx: InvokeContext) => Promise<ConnectorCredential> | undefined;
}

/** Refused at once because the upstream's circuit is open. */
class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
}

type CallOptions = { timeout: number; signal: AbortSignal; maxTotalTimeout: number; onprogress?: (p: { progress: number; total?: number; message?: string }) => void };

/** The calls the pool makes, over either SDK line: 1.x (`initialize`, ≤ 2025-11-25) or v2 pinned to 2026-07-28. */
interface UpstreamClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }, opts: CallOptions): Promise<unknown>;
  readResource(params: { uri: string }, opts: CallOptions): Promise<unknown>;
  getPrompt(params: { name: string; arguments: Record<string, string> }, opts: CallOptions): Promise<unknown>;
  close(): Promise<void>;
}

interface Connection {
  client: UpstreamClient;
  ready: Promise<void>;
}

/** The revision a `protocol: 'modern'` upstream is spoken to in (stateless: `server/discover`, per-request `_meta`). */
const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * Calls tenants' upstream MCP servers with the official SDK client. One connection per
 * (server, url) is kept and reused: a stateless upstream is initialised once and then called
 * directly; a stateful one keeps its session and is re-initialised when the upstream answers
 * 404 (session expired). Each upstream has its own concurrency cap, and every call has a
 * timeout. Only the route's own headers (the upstream's credential) are sent — never the
 * client's token.
 */
export class UpstreamPool implements UpstreamInvoker {
  private readonly connections = new Map<string, Connection>();
  private readonly limits = new Map<string, Semaphore>();
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(private readonly options: UpstreamPoolOptions) {}

  async callTool(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    const pending = this.options.connectorCredential?.(ctx.tenantId, route.serverId, ctx);
    if (pending) {
      const credential = await pending;
      if (credential.kind === 'link') {
        return { isError: true, content: [{ type: 'text', text: `Connect your ${route.serverId} account first, then retry: ${credential.linkUrl}` }] };
      }
      if (credential.kind === 'error') return { isError: true, content: [{ type: 'text', text: `Upstream server ${route.serverId}: ${credential.message}` }] };
      // The user's own upstream token replaces the static credential (connections are keyed by it).
      route = { ...route, headers: { ...route.headers, authorization: `Bearer ${credential.token}` } };
    }
    try {
      return await this.withClient(route, ctx, async (client, opts) => {
        const res = await client.callTool({ name: route.upstreamName, arguments: args }, {
          ...opts,
          onprogress: (p) => ctx.progress(p.progress, p.total, p.message),
        });
        return res as ToolCallResult;
      });
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: this.describe(route, err) }] };
    }
  }

  async readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    try {
      return (await this.withClient(route, ctx, (client, opts) => client.readResource({ uri }, opts))) as ReadResourceResult;
    } catch (err) {
      throw this.wireError(route, err);
    }
  }

  async getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    try {
      return (await this.withClient(route, ctx, (client, opts) => client.getPrompt({ name: route.upstreamName, arguments: args }, opts))) as GetPromptResult;
    } catch (err) {
      throw this.wireError(route, err);
    }
  }

  /** Circuit state of a route's upstream (`closed` before its first call); read by the upstream metrics. */
  circuitState(route: UpstreamRoute): 'closed' | 'open' | 'half-open' {
    return this.breakers.get(`${route.serverId} ${route.url}`)?.state ?? 'closed';
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.client.close().catch(() => undefined)));
  }

  private async withClient<T>(
    route: UpstreamRoute,
    ctx: InvokeContext,
    fn: (client: UpstreamClient, opts: CallOptions) => Promise<T>,
  ): Promise<T> {
    const key = `${route.serverId} ${route.url}`;
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = new CircuitBreaker(this.options.breaker ?? { failureThreshold: 5, openMs: 10_000 });
      this.breakers.set(key, breaker);
    }
    if (!breaker.tryPass()) throw new CircuitOpenError(`circuit open; retrying in ${Math.ceil(breaker.retryInMs / 1000)} s`);
    const timeoutMs = route.timeoutMs ?? this.options.timeoutMs;
    let limit = this.limits.get(key);
    if (!limit) {
      limit = new Semaphore(route.maxConcurrency ?? this.options.maxConcurrency);
      this.limits.set(key, limit);
    }
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
    let release: () => void;
    try {
      release = await limit.acquire(signal);
    } catch (err) {
      breaker.failure();
      throw err;
    }
    // Connections are keyed by credential too, so a rotated credential opens a fresh one.
    const connKey = `${key} ${headerKey(route.headers)}`;
    try {
      const opts = { timeout: timeoutMs, maxTotalTimeout: timeoutMs, signal };
      let out: T;
      try {
        out = await fn(await this.connection(connKey, route), opts);
      } catch (err) {
        if (!isSessionExpired(err)) throw err;
        // A stateful upstream forgot our session (restart, expiry): initialise again and retry once.
        this.drop(connKey);
        out = await fn(await this.connection(connKey, route), opts);
      }
      breaker.success();
      return out;
    } catch (err) {
      // Only transport-level trouble counts against the upstream; a JSON-RPC error is an answer.
      const code = jsonRpcCode(err);
      if (code === undefined || code === -32001) {
        breaker.failure();
        this.drop(connKey);
      } else {
        breaker.success();
      }
      throw err;
    } finally {
      release();
    }
  }

  private async connection(key: string, route: UpstreamRoute): Promise<UpstreamClient> {
    let conn = this.connections.get(key);
    if (!conn) {
      conn = route.protocol === 'modern' ? this.modernConnection(route) : this.legacyConnection(route);
      const ready = conn.ready;
      this.connections.set(key, conn);
      ready.catch(() => {
        if (this.connections.get(key) === conn) this.connections.delete(key);
      });
    }
    await conn.ready;
    return conn.client;
  }

  /**
   * SDK 1.x: over Streamable HTTP one `initialize`, then direct calls (a session when the
   * upstream is stateful); a 2024-11-05 server over the legacy HTTP+SSE transport (its GET
   * event stream stays open for the connection's lifetime).
   */
  private legacyConnection(route: UpstreamRoute): Connection {
    const client = new Client({ name: 'switchboard-gateway', version: '0.1.0' });
    const headers = route.headers ?? {};
    const transport =
      route.transport === 'sse'
        ? new SSEClientTransport(new URL(route.url), {
            requestInit: { headers },
            ...(this.options.fetch ? { fetch: this.options.fetch, redirectPolicy: 'follow' as const } : {}),
          })
        : new StreamableHTTPClientTransport(new URL(route.url), {
            requestInit: { headers },
            ...(this.options.fetch ? { fetch: this.options.fetch, redirectPolicy: 'follow' as const } : {}),
          });
    return {
      ready: client.connect(transport, { timeout: route.timeoutMs ?? this.options.timeoutMs }),
      client: {
        callTool: (params, opts) => client.callTool(params, undefined, opts),
        readResource: (params, opts) => client.readResource(params, opts),
        getPrompt: (params, opts) => client.getPrompt(params, opts),
        close: () => client.close(),
      },
    };
  }

  /** SDK v2 pinned to 2026-07-28: `server/discover` once, then stateless requests carrying their own `_meta`. */
  private modernConnection(route: UpstreamRoute): Connection {
    const client = new ModernClient({ name: 'switchboard-gateway', version: '0.1.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
    const transport = new ModernTransport(new URL(route.url), {
      requestInit: { headers: route.headers ?? {} },
      ...(this.options.fetch ? { fetch: this.options.fetch, redirectPolicy: 'follow' as const } : {}),
    });
    return {
      ready: client.connect(transport, { timeout: route.timeoutMs ?? this.options.timeoutMs }),
      client: {
        callTool: (params, opts) => client.callTool(params, opts),
        readResource: (params, opts) => client.readResource(params, opts),
        getPrompt: (params, opts) => client.getPrompt(params, opts),
        close: () => client.close(),
      },
    };
  }

  private drop(key: string): void {
    const conn = this.connections.get(key);
    this.connections.delete(key);
    void conn?.client.close().catch(() => undefined);
  }

  private describe(route: UpstreamRoute, err: unknown): string {
    const e = err as Error & { code?: unknown };
    if (err instanceof CircuitOpenError) return `Upstream server ${route.serverId} is temporarily unavailable (${e.message})`;
    const code = jsonRpcCode(err);
    if (e?.name === 'TimeoutError' || code === -32001) {
      return `Upstream server ${route.serverId} did not answer within ${route.timeoutMs ?? this.options.timeoutMs} ms`;
    }
    if (code !== undefined) return `Upstream server ${route.serverId} returned an error: ${e.message}`;
    this.options.logger.warn({ upstream: route.serverId, err: e?.message }, 'upstream call failed');
    return `Upstream server ${route.serverId} is unavailable (${summarize(e)})`;
  }

  private wireError(route: UpstreamRoute, err: unknown): McpError {
    const code = jsonRpcCode(err);
    if (code !== undefined) return new McpError(code, (err as Error).message, (err as { data?: unknown }).data);
    return new McpError(ErrorCode.InternalError, this.describe(route, err));
  }
}

function headerKey(headers: Record<string, string> | undefined): string {
  if (!headers) return '';
  return createHash('sha256').update(JSON.stringify(Object.entries(headers).sort())).digest('base64url').slice(0, 16);
}

/**
 * The JSON-RPC error code of an upstream's error answer (either SDK line), or undefined for
 * transport trouble (network, HTTP status, parse).
 */
function jsonRpcCode(err: unknown): number | undefined {
  if (err instanceof SdkMcpError) return err.code;
  const e = err as { code?: unknown; name?: string } | undefined;
  // SDK v2 protocol errors carry the numeric JSON-RPC code too (its HTTP errors carry none in that range).
  if (e && typeof e.code === 'number' && e.code <= -32000 && e.code >= -32768 && e.name !== 'StreamableHTTPError') return e.code;
  return undefined;
}

function isSessionExpired(err: unknown): boolean {
  return err instanceof StreamableHTTPError && err.code === 404;
}

function summarize(err: Error | undefined): string {
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code) return cause.code;
  const msg = err?.message ?? 'unknown error';
  return msg.length > 160 ? `${msg.slice(0, 157)}...` : msg;
}
