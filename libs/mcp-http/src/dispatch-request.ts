import type {
  BundleHandlers,
  CompiledCatalog,
  InputRequiredResult,
  ListMethod,
  Route,
  ToolCallResult,
  ToolContext,
} from '@switchboard/catalog';
import {
  ErrorCode,
  appsSurfaceId,
  LOG_LEVELS,
  McpError,
  buildDiscoverResult,
  buildInitializeResult,
  encodeResult,
  modernResultFields,
  negotiateLegacyVersion,
  type LogLevel,
} from '@switchboard/protocol';
import type { ClientRequestBroker } from './client-request-broker';
import { SplicedResult, type EncodedAnswer } from './encoded-answer';
import { invokeContextOf } from './call-context';
import { ContentRequests } from './dispatch-content';
import { CatalogCapabilities, proxiesTasks } from './dispatch-capabilities';
import { callParkable, toolFailure } from './park-call';
import type { ParkedCalls } from './parked-calls';
import type { DispatchInput } from './dispatch-input';
import type { InvokeContext } from './invoke-context';
import type { UpstreamInvoker } from './upstream-invoker';
import type { StateSealer } from './state-sealer';
import { withClientInput } from './client-input';
import { TASK_METHODS, declaresTasks, missingTasksCapability, type TaskManager, type TaskWork } from './task-manager';
import { refusesWithoutTasks } from './task-wire';
import { LEGACY_TASK_METHODS, UpstreamTasks, listerOf, taskParams } from './upstream-tasks';
import { ModernUpstreamTasks, takesModernUpstreamTask } from './modern-upstream-tasks';
import { readLegacySession } from './legacy-session';
import { checkToolRequest, createModernUpstreamTask, toolArguments, type ToolSlot } from './tool-call-checks';
import type { UpstreamTaskIndex } from './upstream-task-index';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;
/**
 * How a tools/call runs: as a 2025-11-25 upstream's own task (proxied by UpstreamTasks), as a
 * 2026-07-28 upstream's own task if it makes one (ModernUpstreamTasks), as a gateway task, or plain.
 */
type CallMode = 'plain' | 'gateway-task' | 'legacy-upstream-task' | 'modern-upstream-task';

export type { DispatchInput, NotificationSink } from './dispatch-input';

const LIST_METHODS: ReadonlySet<string> = new Set<ListMethod>(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);
const DISCOVER_TTL_MS = 300_000;

/** What the dispatcher answers with: local handlers, the upstream invoker, and the state calls share. */
export interface DispatcherParts {
  handlers: BundleHandlers;
  upstream: UpstreamInvoker | undefined;
  sealer?: StateSealer;
  clientRequests?: ClientRequestBroker;
  tasks?: TaskManager;
  parkedCalls?: ParkedCalls;
  upstreamTaskIndex?: UpstreamTaskIndex;
}

/**
 * Turns one request into its encoded response. Wire errors (McpError) propagate to the
 * caller, which encodes them with their HTTP status; everything else that fails inside a
 * tool becomes an `isError` tool result, never a protocol crash.
 */
export class RequestDispatcher {
  private readonly handlers: BundleHandlers;
  private readonly upstream: UpstreamInvoker | undefined;
  private readonly sealer: StateSealer | undefined;
  private readonly clientRequests: ClientRequestBroker | undefined;
  private readonly tasks: TaskManager | undefined;
  private readonly parkedCalls: ParkedCalls | undefined;
  private readonly content: ContentRequests;
  private readonly capabilities: CatalogCapabilities;
  /** Proxies 2025-11-25 upstreams' own tasks (needs the sealer and an invoker that can). */
  private readonly upstreamTasks: UpstreamTasks | undefined;
  /** Proxies 2026-07-28 upstreams' own tasks (the tasks extension), with `ut2.` handles. */
  private readonly modernUpstreamTasks: ModernUpstreamTasks | undefined;

  constructor(parts: DispatcherParts) {
    this.handlers = parts.handlers;
    this.upstream = parts.upstream;
    this.sealer = parts.sealer;
    this.clientRequests = parts.clientRequests;
    this.tasks = parts.tasks;
    this.parkedCalls = parts.parkedCalls;
    this.content = new ContentRequests(parts.handlers, parts.upstream, parts.clientRequests, parts.sealer);
    this.upstreamTasks = UpstreamTasks.of(parts.sealer, parts.upstream, parts.upstreamTaskIndex);
    this.modernUpstreamTasks = ModernUpstreamTasks.of(parts.sealer, parts.upstream);
    this.capabilities = new CatalogCapabilities({
      gateway: parts.tasks !== undefined,
      legacyUpstream: this.upstreamTasks ? { lists: this.upstreamTasks.lists } : undefined,
      modernUpstream: this.modernUpstreamTasks !== undefined,
    });
  }

  async dispatch(input: DispatchInput): Promise<EncodedAnswer> {
    const { message, context, target } = input;
    const catalog = target.catalog;
    const params = message.params ?? {};

    if (LIST_METHODS.has(message.method)) {
      const cursor = params.cursor;
      if (cursor !== undefined && typeof cursor !== 'string') {
        throw new McpError(ErrorCode.InvalidParams, 'params.cursor must be a string');
      }
      // Discovery mode answers the first tools page; a cursor (from a full list seen earlier) still pages the full list.
      const discovered =
        message.method === 'tools/list' && cursor === undefined
          ? target.discovery?.listPage(input.surfaceId, context.protocolVersion)
          : undefined;
      const surfaceId = input.mcpApps === true ? appsSurfaceId(input.surfaceId) : input.surfaceId;
      const page = discovered ?? catalog.listPage(message.method as ListMethod, surfaceId, context.protocolVersion, cursor);
      return new SplicedResult(message.id, page.body, page.tail);
    }

    switch (message.method) {
      case 'initialize':
        return encodeResult(
          message.id,
          buildInitializeResult({
            protocolVersion: negotiateLegacyVersion(params.protocolVersion),
            capabilities: this.capabilities.initializeCapabilities(catalog),
            serverInfo: catalog.serverInfo,
            instructions: catalog.snapshot.instructions,
          }),
        );
      case 'server/discover':
        return encodeResult(
          message.id,
          buildDiscoverResult({
            capabilities: this.capabilities.discoverCapabilities(input.target),
            serverInfo: catalog.serverInfo,
            instructions: catalog.snapshot.instructions,
            ttlMs: DISCOVER_TTL_MS,
            cacheScope: 'public',
          }),
        );
      case 'ping':
        return encodeResult(message.id, {});
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        if (context.era === 'legacy') await this.content.forwardSubscription(input, params.uri, message.method === 'resources/subscribe');
        return encodeResult(message.id, {});
      case 'logging/setLevel':
        if (!LOG_LEVELS.includes(params.level as LogLevel)) {
          throw new McpError(ErrorCode.InvalidParams, `params.level must be one of ${LOG_LEVELS.join(', ')}`);
        }
        if (context.era === 'legacy') await this.content.forwardLogLevel(input, params.level as LogLevel);
        return encodeResult(message.id, {});
      case 'tools/call': {
        const meta =
          target.discovery && typeof params.name === 'string'
            ? target.discovery.call(params.name, toolArguments(params), input.surfaceId, context.protocolVersion)
            : undefined;
        if (meta) return this.result(input, meta);
        const called = await this.callTool(input, catalog, params);
        if ((called as { isError?: boolean }).isError === true) input.toolErrors?.toolFailed();
        return this.result(input, called);
      }
      case 'resources/read': {
        const read = await this.content.readResource(input, catalog, params);
        // Modern reads carry cache hints like lists; tenant resources may be user-specific.
        return this.result(input, context.era === 'modern' ? { ...read, ttlMs: 0, cacheScope: 'private' } : read);
      }
      case 'prompts/get':
        return this.result(input, await this.content.getPrompt(input, catalog, params));
      case 'completion/complete':
        return this.result(input, await this.content.complete(input, catalog, params));
      default:
        return this.taskMethod(input, params);
    }
  }

  /** The task methods: a proxied upstream task's (by its handle), else the gateway's own; anything else is not found. */
  private async taskMethod(input: DispatchInput, params: Record<string, unknown>): Promise<EncodedAnswer> {
    const { message, context, target } = input;
    const legacy = context.era === 'legacy' && LEGACY_TASK_METHODS.has(message.method);
    const modern = context.era === 'modern' && TASK_METHODS.has(message.method);
    // A `ut2.` handle is the modern proxy's; any other legacy task method is the legacy proxy's (it also lists).
    const proxy =
      this.modernUpstreamTasks && ModernUpstreamTasks.owns(params.taskId)
        ? this.modernUpstreamTasks
        : legacy || UpstreamTasks.owns(params.taskId)
          ? this.upstreamTasks
          : undefined;
    if (proxy && (legacy || modern)) {
      if (modern && !declaresTasks(context.clientCapabilities)) throw missingTasksCapability(message.method);
      // The caller's scope travels in the call itself (TaskMethodCall extends TaskScope).
      const call = {
        tenantId: target.tenantId,
        subject: input.auth?.subject ?? '',
        method: message.method,
        params,
        catalog: target.catalog,
      };
      const ctx = invokeContextOf(input, this.clientRequests, this.sealer);
      if (legacy && proxy instanceof UpstreamTasks) return this.result(input, await proxy.legacy(call, ctx, this.lister(input, call)));
      return this.result(input, legacy ? await proxy.legacy(call, ctx) : await proxy.modern(call, ctx));
    }
    if (this.tasks && modern) {
      const scope = { tenantId: target.tenantId, subject: input.auth?.subject ?? '' };
      return this.result(input, await this.tasks.handle(message.method, params, scope, declaresTasks(context.clientCapabilities)));
    }
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`, undefined, context.era === 'modern' ? 404 : 200);
  }

  private result(input: DispatchInput, result: object): string {
    const inputRequired = (result as { resultType?: unknown }).resultType === 'input_required';
    if (input.context.era === 'modern') {
      const fields = modernResultFields(input.target.catalog.serverInfo);
      const own = (result as { _meta?: Record<string, unknown> })._meta;
      // `task` (a CreateTaskResult) is the tasks extension's discriminator.
      const resultType = inputRequired
        ? 'input_required'
        : (result as { resultType?: unknown }).resultType === 'task'
          ? 'task'
          : fields.resultType;
      return encodeResult(input.message.id, { ...result, resultType, _meta: { ...own, ...fields._meta } });
    }
    // Handlers only ask when ctx.input is present (modern); a legacy result has no way to carry it.
    if (inputRequired)
      throw new McpError(
        ErrorCode.InternalError,
        `${input.message.method} needs client input, which protocol ${input.context.protocolVersion} cannot carry`,
      );
    return encodeResult(input.message.id, result);
  }

  private async callTool(
    input: DispatchInput,
    catalog: CompiledCatalog,
    params: Record<string, unknown>,
  ): Promise<ToolCallResult | InputRequiredResult | object> {
    const name = params.name;
    if (typeof name !== 'string' || name.length === 0)
      throw new McpError(ErrorCode.InvalidParams, 'params.name must be a non-empty string');
    const args = toolArguments(params);
    const found = catalog.tool(name);
    if (!found) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    checkToolRequest(input, name, found, args);
    const mode = this.callMode(input, catalog, found, params);
    const route = found.entry.route;
    if (route.kind === 'local') return this.callLocal(input, name, route.handler, args, mode === 'gateway-task');
    // Upstream tools are validated here, before any network hop.
    const problem = found.validate(args);
    if (problem !== null) {
      return { isError: true, content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${problem}` }] };
    }
    return this.callUpstream(input, params, route, args, mode);
  }

  /** How the call of `found` runs (see {@link CallMode}); refuses a task the tool or the client cannot have. */
  private callMode(input: DispatchInput, catalog: CompiledCatalog, found: ToolSlot, params: Record<string, unknown>): CallMode {
    const { route, definition } = found.entry;
    const taskSupport = definition.taskSupport;
    const era = input.context.era;
    const declared = declaresTasks(input.context.clientCapabilities);
    // Tasks extension: only a modern request that declared it may get a task; a required-task tool refuses the others.
    const asTask = taskSupport !== undefined && this.tasks !== undefined && era === 'modern';
    if (asTask && refusesWithoutTasks(taskSupport, era, input.context.clientCapabilities))
      throw missingTasksCapability(`Tool ${String(params.name)}`);
    const taskable = asTask && declared;
    if (this.modernUpstreamTasks !== undefined && takesModernUpstreamTask(route, era, declared, params.task)) return 'modern-upstream-task';
    if (
      era === 'legacy' &&
      params.task !== undefined &&
      this.capabilities.initializeCapabilities(catalog).tasks !== undefined &&
      !proxiesTasks(route, taskSupport)
    ) {
      // 2025-11-25: where tasks are declared, a task-augmented call of a tool whose taskSupport
      // is "forbidden" (absent) is refused rather than silently run as a plain call.
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Tool ${String(params.name)} cannot be called as a task (its execution.taskSupport is "forbidden"); call it without params.task`,
      );
    }
    // A 2025-11-25 client's task-augmented call becomes a 2025-11-25 upstream's own task, and so does
    // a 2026-07-28 one of a tool that only runs as a task (an optional one stays a gateway task).
    if (
      this.upstreamTasks &&
      taskSupport !== undefined &&
      route.kind === 'upstream' &&
      route.protocol !== 'modern' &&
      ((era === 'legacy' && params.task !== undefined) || (taskable && taskSupport === 'required'))
    )
      return 'legacy-upstream-task';
    return taskable ? 'gateway-task' : 'plain';
  }

  /** A local tool's call (not async: the hot path adds no promise of its own). */
  private callLocal(
    input: DispatchInput,
    name: string,
    handler: string,
    args: Record<string, unknown>,
    asTask: boolean,
  ): ToolCallResult | Promise<ToolCallResult | InputRequiredResult | object> {
    // Tool.call validates with the same cached validator and renders the failure.
    const tool = this.handlers.tools.get(handler);
    if (!tool) return toolFailure(name, 'its implementation is not available on this server');
    const ctx = invokeContextOf(input, this.clientRequests, this.sealer);
    if (asTask) return this.runAsTask(input, ctx, (c) => tool.call(args, c));
    return withClientInput(
      this.clientRequests,
      input,
      ctx,
      (c) => tool.call(args, c),
      (why) => toolFailure(name, why),
    );
  }

  /** A validated upstream tool's call (`params.name` checked by callTool) in its {@link CallMode}. */
  private callUpstream(
    input: DispatchInput,
    params: Record<string, unknown>,
    route: UpstreamRoute,
    args: Record<string, unknown>,
    mode: CallMode,
  ): Promise<ToolCallResult | InputRequiredResult | object> {
    const upstream = this.requireUpstream(route);
    const name = params.name as string;
    const ctx = invokeContextOf(input, this.clientRequests, this.sealer);
    if (mode === 'legacy-upstream-task' || mode === 'modern-upstream-task') {
      // The caller's scope travels in the call itself (UpstreamTaskCall extends TaskScope).
      const call = { tenantId: input.target.tenantId, subject: input.auth?.subject ?? '', tool: name, route, args };
      if (mode === 'legacy-upstream-task') {
        if (input.context.era === 'legacy') return this.upstreamTasks!.create(call, taskParams(params.task), ctx, this.lister(input, call));
        return createModernUpstreamTask(this.upstreamTasks!, call, ctx);
      }
      // The caller can take a task: the 2026-07-28 upstream is asked with the tasks extension
      // declared and decides; a task it makes is proxied (see ModernUpstreamTasks).
      const era = input.context.era;
      const asked = (c: InvokeContext) => this.modernUpstreamTasks!.call(call, c, era) as unknown as Promise<ToolCallResult>;
      if (era === 'modern' && this.parkedCalls) return callParkable(this.parkedCalls, input, name, ctx, asked);
      return asked(ctx);
    }
    const call = (c: InvokeContext) => upstream.callTool(route, args, c);
    if (mode === 'gateway-task') return this.runAsTask(input, ctx, call);
    if (input.context.era === 'modern' && this.parkedCalls) return callParkable(this.parkedCalls, input, name, ctx, call);
    return call(ctx);
  }

  /**
   * Hands the call to the task manager: answered directly when quick, else as a task whose
   * work runs on with its own signal (progress and logs stop once it outlived the request).
   */
  private runAsTask(
    input: DispatchInput,
    ctx: InvokeContext & ToolContext,
    call: (ctx: InvokeContext & ToolContext) => Promise<ToolCallResult | InputRequiredResult>,
  ): Promise<ToolCallResult | InputRequiredResult | object> {
    const work: TaskWork = (taskInput, signal, detached) =>
      call({
        ...ctx,
        input: taskInput,
        signal,
        progress: (...a) => (detached() ? undefined : ctx.progress(...a)),
        log: (...a) => (detached() ? undefined : ctx.log(...a)),
      });
    const scope = { tenantId: input.target.tenantId, subject: input.auth?.subject ?? '' };
    return this.tasks!.run(scope, work, ctx.input ?? { responses: {} }, input.signal);
  }

  /** Whose tasks/list a proxied task joins: the subject, else a session this gateway issued (see {@link listerOf}). */
  private lister(input: DispatchInput, scope: { tenantId: string; subject: string }): string | undefined {
    const session = input.headers?.['mcp-session-id'];
    const issued =
      typeof session === 'string' &&
      this.sealer !== undefined &&
      typeof readLegacySession(this.sealer, scope.tenantId, session) === 'object';
    return listerOf(scope.tenantId, scope.subject, issued ? session : undefined);
  }

  private requireUpstream(route: UpstreamRoute): UpstreamInvoker {
    if (!this.upstream) throw new McpError(ErrorCode.InternalError, `No upstream invoker configured for server ${route.serverId}`);
    return this.upstream;
  }
}
