import type { GetPromptResult, ReadResourceResult, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamCompletion, UpstreamTaskAnswer, UpstreamTaskRequest } from '@switchboard/mcp-http';
import type { ConnectorCredential } from '../auth/connector-tokens';
import { GatewayError, toolErrorResult, wireError } from './gateway-errors';
import type { ObservableInvoker } from './traced-upstream';
import type { UpstreamPool, UpstreamRoute } from './upstream-pool';

/** JSON-RPC code of URLElicitationRequiredError (2025-11-25): the client must complete the URL elicitations in `data` first. */
const URL_ELICITATION_REQUIRED = -32042;

/** Per-user credentials of enterprise connectors: a resolver for the routes that need one, else undefined. */
export type ConnectorCredentialLookup = (tenantId: string, serverId: string, ctx: InvokeContext) => Promise<ConnectorCredential> | undefined;

/**
 * The gateway's upstream invoker: resolves a per-user connector credential before the pool
 * (which is a pure transport and never sees who the caller is), calls the pool, and maps every
 * coded failure to its answer in one place — a tools/call failure is an `isError` result, a
 * resources/read or prompts/get failure a JSON-RPC error (`gateway-errors.ts`).
 */
export class GatewayUpstream implements ObservableInvoker {
  constructor(
    private readonly pool: UpstreamPool,
    private readonly connectorCredential?: ConnectorCredentialLookup,
  ) {}

  async callTool(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    try {
      return await this.pool.callTool(await this.withCredential(route, ctx), args, ctx);
    } catch (err) {
      if (err instanceof GatewayError) {
        // "URL elicitation required" is the upstream asking the client to act before the call can run:
        // a client handles it only as the JSON-RPC error it is (with its elicitations), never as a tool result.
        if (err.code === 'GW_UPSTREAM_ERROR' && (err.cause as { code?: unknown }).code === URL_ELICITATION_REQUIRED) throw wireError(err);
        return toolErrorResult(err);
      }
      throw err;
    }
  }

  async readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    try {
      return await this.pool.readResource(await this.withCredential(route, ctx), uri, ctx);
    } catch (err) {
      throw err instanceof GatewayError ? wireError(err) : err;
    }
  }

  async getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    try {
      return await this.pool.getPrompt(await this.withCredential(route, ctx), args, ctx);
    } catch (err) {
      throw err instanceof GatewayError ? wireError(err) : err;
    }
  }

  async complete(route: UpstreamRoute, request: UpstreamCompletion, ctx: InvokeContext): Promise<unknown> {
    try {
      return await this.pool.complete(await this.withCredential(route, ctx), request, ctx);
    } catch (err) {
      throw err instanceof GatewayError ? wireError(err) : err;
    }
  }

  async upstreamTask(route: UpstreamRoute, request: UpstreamTaskRequest, ctx: InvokeContext): Promise<UpstreamTaskAnswer> {
    try {
      return await this.pool.upstreamTask(await this.withCredential(route, ctx), request, ctx);
    } catch (err) {
      throw err instanceof GatewayError ? wireError(err) : err;
    }
  }

  pendingTaskInput(route: UpstreamRoute, session: string, ctx: InvokeContext): Promise<Record<string, { method: string; params: Record<string, unknown> }>> {
    return this.pool.pendingTaskInput(route, session, ctx);
  }

  answerTaskInput(route: UpstreamRoute, session: string, responses: Record<string, unknown>, ctx: InvokeContext): Promise<string[]> {
    return this.pool.answerTaskInput(route, session, responses, ctx);
  }

  async setLogLevel(route: UpstreamRoute, level: string, ctx: InvokeContext): Promise<void> {
    try {
      await this.pool.setLogLevel(await this.withCredential(route, ctx), level, ctx);
    } catch (err) {
      throw err instanceof GatewayError ? wireError(err) : err;
    }
  }

  async subscribeResource(route: UpstreamRoute, uri: string, on: boolean, ctx: InvokeContext): Promise<void> {
    try {
      await this.pool.subscribeResource(await this.withCredential(route, ctx), uri, on, ctx);
    } catch (err) {
      throw err instanceof GatewayError ? wireError(err) : err;
    }
  }

  circuitState(route: UpstreamRoute, tenantId: string): 'closed' | 'open' | 'half-open' {
    return this.pool.circuitState(route, tenantId);
  }

  /**
   * For a per-user connector route: the route with the user's own upstream token as its only
   * credential (replacing any static one; the pool keys connections by it), or a coded failure
   * (not linked ⇒ the link URL). Other routes pass unchanged.
   */
  private async withCredential(route: UpstreamRoute, ctx: InvokeContext): Promise<UpstreamRoute> {
    const pending = this.connectorCredential?.(ctx.tenantId, route.serverId, ctx);
    if (!pending) return route;
    const credential = await pending;
    const upstream = route.serverId;
    if (credential.kind === 'link') {
      const again = credential.reason === 'refresh_failed' ? `Your ${upstream} account must be connected again` : `Connect your ${upstream} account first`;
      throw new GatewayError('GW_CONNECTOR_NOT_LINKED', `${again}, then retry: ${credential.linkUrl}`, { upstream, linkUrl: credential.linkUrl, reason: credential.reason });
    }
    if (credential.kind === 'error') throw new GatewayError(credential.code, `Upstream server ${upstream}: ${credential.message}`, { upstream });
    return { ...route, headers: { ...route.headers, authorization: `Bearer ${credential.token}` } };
  }
}
