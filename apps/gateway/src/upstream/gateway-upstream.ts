import type { GetPromptResult, ReadResourceResult, ToolCallResult } from '@switchboard/catalog';
import type { InvokeContext, UpstreamCompletion, UpstreamInvoker, UpstreamTaskAnswer, UpstreamTaskRequest } from '@switchboard/mcp-http';
import { withConnectorCredential } from './connector-credential';
import { GatewayError, toolErrorResult, wireError } from './gateway-errors';
import { noteResourceUri, observeCall } from './upstream-observation';
import type { UpstreamPool } from './upstream-pool';
import type { ConnectorCredentialLookup, UpstreamRoute } from './upstream-types';

/** JSON-RPC code of URLElicitationRequiredError (2025-11-25): the client must complete the URL elicitations in `data` first. */
const URL_ELICITATION_REQUIRED = -32042;

const isToolError = (r: ToolCallResult): boolean => r.isError === true;
const never = (): boolean => false;

/**
 * The gateway's one upstream invoker, composed of its three concerns: the caller's connector
 * credential (resolved before the pool, which never sees who the caller is), observation (a
 * CLIENT span and metrics per call) and the pool's guarded transport. Every coded failure is
 * answered here: a tools/call failure as an `isError` result, any other as a JSON-RPC error.
 */
export class GatewayUpstream implements UpstreamInvoker {
  constructor(
    private readonly pool: UpstreamPool,
    private readonly connectorCredential?: ConnectorCredentialLookup,
  ) {}

  callTool(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    return observeCall('tools/call', route, ctx, () => this.toolCall(route, args, ctx), isToolError);
  }

  readResource(route: UpstreamRoute, uri: string, ctx: InvokeContext): Promise<ReadResourceResult> {
    return observeCall(
      'resources/read',
      route,
      ctx,
      () => {
        noteResourceUri(uri);
        return this.wired(route, ctx, (r) => this.pool.readResource(r, uri, ctx));
      },
      never,
    );
  }

  getPrompt(route: UpstreamRoute, args: Record<string, string>, ctx: InvokeContext): Promise<GetPromptResult> {
    return observeCall('prompts/get', route, ctx, () => this.wired(route, ctx, (r) => this.pool.getPrompt(r, args, ctx)), never);
  }

  complete(route: UpstreamRoute, request: UpstreamCompletion, ctx: InvokeContext): Promise<unknown> {
    return observeCall('completion/complete', route, ctx, () => this.wired(route, ctx, (r) => this.pool.complete(r, request, ctx)), never);
  }

  upstreamTask(route: UpstreamRoute, request: UpstreamTaskRequest, ctx: InvokeContext): Promise<UpstreamTaskAnswer> {
    return observeCall(request.method, route, ctx, () => this.wired(route, ctx, (r) => this.pool.upstreamTask(r, request, ctx)), never);
  }

  setLogLevel(route: UpstreamRoute, level: string, ctx: InvokeContext): Promise<void> {
    return observeCall('logging/setLevel', route, ctx, () => this.wired(route, ctx, (r) => this.pool.setLogLevel(r, level, ctx)), never);
  }

  subscribeResource(route: UpstreamRoute, uri: string, on: boolean, ctx: InvokeContext): Promise<void> {
    const method = on ? 'resources/subscribe' : 'resources/unsubscribe';
    return observeCall(
      method,
      route,
      ctx,
      () => {
        noteResourceUri(uri);
        return this.wired(route, ctx, (r) => this.pool.subscribeResource(r, uri, on, ctx));
      },
      never,
    );
  }

  // Held requests and the answers to them make no upstream round trip: nothing to observe.
  pendingTaskInput(
    route: UpstreamRoute,
    session: string,
    ctx: InvokeContext,
  ): Promise<Record<string, { method: string; params: Record<string, unknown> }>> {
    return this.pool.pendingTaskInput(route, session, ctx);
  }

  answerTaskInput(route: UpstreamRoute, session: string, responses: Record<string, unknown>, ctx: InvokeContext): Promise<string[]> {
    return this.pool.answerTaskInput(route, session, responses, ctx);
  }

  private async toolCall(route: UpstreamRoute, args: Record<string, unknown>, ctx: InvokeContext): Promise<ToolCallResult> {
    try {
      const own = withConnectorCredential(this.connectorCredential, route, ctx);
      return await this.pool.callTool(own instanceof Promise ? await own : own, args, ctx);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      // "URL elicitation required" is the upstream asking the client to act before the call can run:
      // a client handles it only as the JSON-RPC error it is (with its elicitations), never as a tool result.
      if (err.code === 'GW_UPSTREAM_ERROR' && (err.cause as { code?: unknown }).code === URL_ELICITATION_REQUIRED) throw wireError(err);
      return toolErrorResult(err);
    }
  }

  /** Any other request: on the caller's credential, a coded failure answered as its JSON-RPC error. */
  private async wired<T>(route: UpstreamRoute, ctx: InvokeContext, send: (route: UpstreamRoute) => Promise<T>): Promise<T> {
    try {
      const own = withConnectorCredential(this.connectorCredential, route, ctx);
      return await send(own instanceof Promise ? await own : own);
    } catch (err) {
      throw err instanceof GatewayError ? wireError(err) : err;
    }
  }
}
